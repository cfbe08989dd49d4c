"""Web app for updates (recompiled on every change), subscribers and deliveries (read-only)."""

import csv
from itertools import chain

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from trails.models import TrailSystem
from updates import services
from updates.enums import UpdateType
from updates.models import Delivery, Subscriber, Update
from updates.subscribers import (
    active_subscriber_count,
    add_subscriber,
    change_subscriber,
    clean_contact,
    delete_subscriber,
    unsubscribe_subscribers,
)
from updates.types import TYPE_FIELDS
from webapp import roles
from webapp.actors import web_actor
from webapp.admin.base import (
    DeleteThroughService,
    ReadOnlyAdmin,
    ServiceAdmin,
    SystemLinkOnViewMixin,
    system_overview_link,
)
from webapp.trail_admin import TrailIdsForm, TrailPickerMixin, surface_condition_choices
from webapp.zones import ListedInSystemZone, zone_now


class UpdateForm(TrailIdsForm):
    """With notify ticked, the first save asks, on a page of its own, whether to send it to
    the N subscribers: there is no preview or undo once it is sent."""

    notify = forms.BooleanField(
        label=_("Notify subscribers"),
        required=False,
        help_text=_("E-mail and text this update to the system's subscribers. Only when adding."),
    )
    confirm_notify = forms.BooleanField(required=False, widget=forms.HiddenInput)
    conditions = forms.MultipleChoiceField(
        label=_("Surface conditions"),
        choices=surface_condition_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Surface conditions only."),
    )

    class Meta:
        model = Update
        fields = [
            "trail_system",
            "type",
            "expiration_date",
            "all_trails",
            *chain.from_iterable(TYPE_FIELDS.values()),
        ]

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("type")
        if kind == "notice" and not cleaned.get("description"):
            self.add_error("description", _("A notice needs its text."))
        if kind == "surfaceConditions":
            if not cleaned.get("conditions"):
                self.add_error("conditions", _("Choose at least one surface condition."))
            if not cleaned.get("trail_ids") and not cleaned.get("all_trails"):
                self.add_error("trail_ids", _("Choose trails, or tick all trails."))
        system, trails = cleaned.get("trail_system"), cleaned.get("trail_ids")
        if system and trails and any(t.trail_system_id != system.pk for t in trails):
            self.add_error("trail_ids", _("Every trail must belong to the update's trail system."))
        return cleaned

    def needs_confirmation(self) -> bool:
        """A valid new update to be sent, not yet confirmed."""
        return bool(self.cleaned_data.get("notify") and not self.cleaned_data.get("confirm_notify"))


def service_fields(cleaned: dict, names) -> dict:
    """The form's values as updates.services takes them: trails by id."""
    skipped = ("trail_system", "confirm_notify")
    fields = {name: cleaned[name] for name in names if name not in skipped}
    if "trail_ids" in names:
        fields["trail_ids"] = [trail.pk for trail in cleaned["trail_ids"]]
    return fields


@admin.register(Update)
class UpdateAdmin(ListedInSystemZone, TrailPickerMixin, DeleteThroughService, ServiceAdmin):
    """Created, changed and deleted through updates.services, as the API does (source `web`)."""

    row_name = "update"
    delete_function = staticmethod(services.delete_update)

    form = UpdateForm
    list_display = ["type", "trail_system", "expiration_date", "notify", "source", "updated_on"]
    list_filter = ["type", "source", "trail_system"]
    list_select_related = ["trail_system"]
    search_fields = ["id", "description"]
    date_hierarchy = "expiration_date"
    autocomplete_fields = ["trail_system", "trails"]

    class Media:
        js = ["webapp/update_form.js"]

    def get_changeform_initial_data(self, request) -> dict:
        """The API's default expiry, to the minute, there to be changed."""
        expiry = (timezone.now() + services.DEFAULT_LIFETIME).replace(second=0, microsecond=0)
        return {"expiration_date": expiry, **super().get_changeform_initial_data(request)}

    def add_view(self, request, form_url="", extra_context=None):
        """A new update to send to subscribers: first the question, on a page of its own,
        with the person's input kept for the answer."""
        if request.method == "POST" and not request.POST.get("confirm_notify"):
            form = self.get_form(request)(request.POST, request.FILES)
            if form.is_valid() and form.needs_confirmation():
                system = form.cleaned_data["trail_system"]
                kept = [
                    (name, value)
                    for name, values in request.POST.lists()
                    if name not in ("csrfmiddlewaretoken", "confirm_notify")
                    for value in values
                ]
                context = {
                    **self.admin_site.each_context(request),
                    "title": _("Send this update to the subscribers?"),
                    "opts": self.opts,
                    "system": system,
                    "count": active_subscriber_count(system),
                    "kept": kept,
                }
                return TemplateResponse(request, "webapp/update_notify_question.html", context)
        return super().add_view(request, form_url, extra_context)

    def page_system(self, request, object_id: str | None) -> TrailSystem | None:
        """On an add page, the system picked: the expiry is read in its zone and said in it."""
        if object_id:
            return super().page_system(request, object_id)
        picked = request.POST.get("trail_system") or request.GET.get("trail_system")
        return TrailSystem.objects.filter(pk=picked).first() if picked else None

    def get_queryset(self, request):
        """With each update's system, whose name is in its title (Update.__str__): on the
        delete pages, in the messages and in the log."""
        return super().get_queryset(request).select_related("trail_system")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        # The expiry is read in the page's time zone: said, with the time there now.
        form.base_fields["expiration_date"].help_text = _("Times are in %(zones)s.") % {
            "zones": zone_now()
        }
        if obj is not None:
            # Notify is the creation's; a change never sends (spec section 6).
            form.base_fields = {
                name: field
                for name, field in form.base_fields.items()
                if name not in ("notify", "confirm_notify", "trail_system")
            }
        return form

    def get_readonly_fields(self, request, obj=None):
        """An update stays with its system and type; post a new one instead."""
        return [system_overview_link, "type"] if obj is not None else []

    def get_fieldsets(self, request, obj=None):
        """One section per update type, so the person fills in only their type's part; an
        existing update keeps its type, so its page shows that type's section alone."""
        kinds = TYPE_FIELDS if obj is None else {obj.type: TYPE_FIELDS[obj.type]}
        sections = [
            (None, {"fields": [*self.get_readonly_fields(request, obj), "expiration_date"]})
        ]
        # A snow report is the whole system's: its form has no trails to choose.
        about_trails = [f"update-type-{kind}" for kind in kinds if kind != UpdateType.SNOW_REPORT]
        if about_trails:
            trails = {"fields": ["trail_ids", "all_trails"]}
            sections.append((_("Trails"), trails | {"classes": ["update-type", *about_trails]}))
        sections += [
            (
                UpdateType(kind).label,
                {"fields": list(names), "classes": ["update-type", f"update-type-{kind}"]},
            )
            for kind, names in kinds.items()
        ]
        if obj is None:
            sections[0][1]["fields"][:0] = ["trail_system", "type"]
            sections.append((_("Subscribers"), {"fields": ["notify", "confirm_notify"]}))
        return sections

    def save_model(self, request, obj, form, change):
        """An untouched form saves nothing (the service refuses a change without fields)."""
        if change and not form.changed_data:
            return
        if change:
            services.change_update(
                update=obj,
                **service_fields(form.cleaned_data, form.changed_data),
                actor=web_actor(request),
            )
            return
        update = services.create_update(
            system=form.cleaned_data["trail_system"],
            **service_fields(form.cleaned_data, form.cleaned_data),
            actor=web_actor(request),
            source=Update.Source.WEB,
        )
        self.stand_for(obj, update)

    def save_related(self, request, form, formsets, change):
        """The service has set the update's trails."""


class SubscriberForm(forms.ModelForm):
    class Meta:
        model = Subscriber
        fields = ["trail_system", "email", "phone", "unsubscribed_on"]

    def clean(self):
        cleaned = super().clean()
        if (
            cleaned.get("trail_system")
            and not self.has_error("email")
            and not self.has_error("phone")
        ):
            try:
                cleaned["email"], cleaned["phone"] = clean_contact(
                    cleaned["trail_system"],
                    email=cleaned.get("email", ""),
                    phone=cleaned.get("phone", ""),
                    exclude_id=self.instance.pk,
                )
            except ValidationError as error:
                raise ValidationError(error.messages) from None
        return cleaned


@admin.register(Subscriber)
class SubscriberAdmin(
    ListedInSystemZone, SystemLinkOnViewMixin, DeleteThroughService, ServiceAdmin
):
    """The system's Administrators see the list and each subscriber, unsubscribe people and
    export the list as CSV; Trustees never see a contact. Rows are changed by hand only by
    superAdmins."""

    row_name = "subscriber"
    delete_function = staticmethod(delete_subscriber)

    form = SubscriberForm
    list_display = ["__str__", "trail_system", "email", "phone", "created_on", "unsubscribed_on"]
    list_filter = ["trail_system", ("unsubscribed_on", admin.EmptyFieldListFilter)]
    list_select_related = ["trail_system"]
    search_fields = ["email", "phone"]
    autocomplete_fields = ["trail_system"]
    readonly_fields = ["id", "created_on", "email_failed_on", "phone_failed_on"]
    actions = ["unsubscribe", "export_csv"]

    def get_ordering(self, request):
        """A search is served by the trigram indexes and its few rows sorted; in creation
        order PostgreSQL may walk a million rows for a term it thinks common."""
        return ["email"] if request.GET.get("q") else super().get_ordering(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return roles.is_super(request.user)

    def has_unsubscribe_permission(self, request) -> bool:
        return request.user.has_perm("updates.change_subscriber")

    def has_export_permission(self, request) -> bool:
        return request.user.has_perm("updates.export_subscriber")

    @admin.action(description=_("Unsubscribe selected"), permissions=["unsubscribe"])
    def unsubscribe(self, request, queryset):
        ids = list(self.scoped(request, queryset, "change").values_list("pk", flat=True))
        count = unsubscribe_subscribers(subscriber_ids=ids)
        self.message_user(
            request,
            ngettext(
                "Unsubscribed %(count)d subscriber.", "Unsubscribed %(count)d subscribers.", count
            )
            % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(description=_("Export selected as CSV"), permissions=["export"])
    def export_csv(self, request, queryset):
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="subscribers.csv"'
        writer = csv.writer(response)
        writer.writerow(["trail_system", "email", "phone", "subscribed_on", "unsubscribed_on"])
        rows = self.scoped(request, queryset, "export").select_related("trail_system")
        for subscriber in rows.order_by("trail_system__name", "created_on"):
            writer.writerow(
                [
                    subscriber.trail_system.name,
                    subscriber.email,
                    subscriber.phone,
                    subscriber.created_on.isoformat(),
                    subscriber.unsubscribed_on.isoformat() if subscriber.unsubscribed_on else "",
                ]
            )
        return response

    def save_model(self, request, obj, form, change):
        """Through updates.subscribers; the form has already checked the contact details."""
        if change:
            subscriber = Subscriber.objects.get(pk=obj.pk)
            change_subscriber(subscriber=subscriber, **self.changed_fields(form))
            return
        created = add_subscriber(
            system=form.cleaned_data["trail_system"],
            email=form.cleaned_data["email"],
            phone=form.cleaned_data["phone"],
        )
        if form.cleaned_data.get("unsubscribed_on"):
            change_subscriber(
                subscriber=created, unsubscribed_on=form.cleaned_data["unsubscribed_on"]
            )
        self.stand_for(obj, created)


@admin.register(Delivery)
class DeliveryAdmin(ListedInSystemZone, ReadOnlyAdmin):
    """What was sent to whom; written only by the notification task."""

    system_of_row = "update__trail_system"

    list_display = ["update", "subscriber", "channel", "state", "attempts", "sent_on"]
    list_filter = ["channel", "state"]
    list_select_related = ["update__trail_system", "subscriber"]
