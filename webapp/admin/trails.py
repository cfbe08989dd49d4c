"""The web app for trail systems, members, trails with their activities, points and the trash.

Every write to trails and points (and updates, see webapp.admin.updates) is a service call, so
it queues a recompile and records the history in the same transaction, as an API write does.
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from alerts import services as alerts_services
from alerts.selectors import followers_of_trail
from trails import services, trash
from trails.countries import default_sms_countries
from trails.fields import ACTIVITY, POINT, TRAIL, WEB_APP
from trails.geometry import GeometryError
from trails.geometry import validate as validate_geometry
from trails.importing import InvalidInput, validate_role
from trails.models import (
    Membership,
    Point,
    Trail,
    TrailActivity,
    TrailSystem,
    TrashedPoint,
    TrashedTrail,
)
from trails.timezones import known_zones, zone_name, zone_of
from webapp import (
    closures_page,
    grooming_log_page,
    grooming_page,
    history_page,
    recorder_page,
    roles,
    system_pages,
    trackers_page,
)
from webapp.actors import web_actor
from webapp.admin.base import (
    BulkDeleteThroughService,
    DeleteThroughService,
    ServiceAdmin,
    SystemLinkOnViewMixin,
    account_text,
    apply_to_selected,
)
from webapp.history_page import StatusHistoryMixin
from webapp.scoping import RoleScopedTabularInline
from webapp.trail_admin import (
    STATUS_ACTIONS,
    ActivityFilter,
    CategoryFilter,
    GeometryMapWidget,
    activity_choices,
    activity_label,
)
from webapp.twins import TWIN_FIELDS, twin_details
from webapp.zones import ChangedInSystemZone


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["role"]

    def clean_role(self) -> str:
        try:
            return validate_role(self.cleaned_data["role"])
        except InvalidInput as error:
            raise ValidationError(str(error)) from None


class MembershipInline(RoleScopedTabularInline):
    """Members' roles; new members come in by e-mail invitation (the system's Invite page)."""

    model = Membership
    form = MembershipForm
    fields = [account_text, "role"]
    readonly_fields = [account_text]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


OWNER_TEXT = {"owner": "owner_account"}


class CountryCodesField(forms.CharField):
    """ISO country codes typed as `CA, US` rather than the JSON list they are stored as; the
    service checks each code."""

    def prepare_value(self, value):
        return ", ".join(value) if isinstance(value, list) else value

    def to_python(self, value) -> list[str]:
        return [code.upper() for code in super().to_python(value).replace(",", " ").split()]


class TrailSystemForm(forms.ModelForm):
    sms_countries = CountryCodesField(label=_("SMS countries"), required=False)
    # Not a column of the system: alerts' own row says they are off (alerts.services).
    alerts_on = forms.BooleanField(
        label=_("Riders may follow trails and get alerts"),
        required=False,
        initial=True,
        help_text=_(
            "Off: nothing more is sent to riders who follow this system's trails, and no "
            "rider can follow them, until it is on again. Their choices are kept."
        ),
    )

    class Meta:
        model = TrailSystem
        fields = ["sms_countries", "sms_confirmations_per_day"]  # the admin adds the others

    def __init__(self, *args, **kwargs):
        """The countries field names the default in force for this system."""
        super().__init__(*args, **kwargs)
        if "alerts_on" in self.fields and self.instance.pk:
            self.fields["alerts_on"].initial = alerts_services.alerts_on(self.instance)
        if "sms_countries" not in self.fields:
            return
        default = ", ".join(default_sms_countries(self.instance)) if self.instance.pk else ""
        self.fields["sms_countries"].help_text = _(
            "Countries whose mobile numbers may sign up by text message, as ISO codes "
            "separated by commas (CA, US). Empty: the country of the system's location "
            "(now: %(default)s)."
        ) % {"default": default or _("none found yet")}


def time_zone_field(system: TrailSystem | None) -> forms.ChoiceField:
    """Every IANA zone, or none: the zone of the system's location, named when it is known."""
    derived = zone_name(system) if system is not None else None
    unset = (
        _("From the system's location (now %(zone)s)") % {"zone": derived}
        if derived
        else _("From the system's location")
    )
    return forms.ChoiceField(
        label=TrailSystem._meta.get_field("time_zone").verbose_name.capitalize(),
        choices=[("", unset), *((name, name) for name in known_zones())],
        required=False,
        help_text=TrailSystem._meta.get_field("time_zone").help_text,
    )


@admin.register(TrailSystem)
class TrailSystemAdmin(ChangedInSystemZone, StatusHistoryMixin, DeleteThroughService, ServiceAdmin):
    row_name = "system"
    system_of_row = ""
    form = TrailSystemForm
    delete_function = staticmethod(services.delete_trail_system)
    list_display = [
        "name",
        "id",
        "owner",
        "subscription",
        "inactive",
        "total_trails",
        "open_trails",
    ]
    list_filter = ["inactive", "subscription", "language"]
    list_select_related = ["owner"]
    search_fields = ["name", "id", "owner__uid", "owner__email"]
    autocomplete_fields = ["owner"]
    inlines = [MembershipInline]
    readonly_fields = [
        "id",
        "created_on",
        "location_derived",
        "total_trails",
        "open_trails",
        "caution_trails",
        "closed_trails",
        "total_distance",
        "open_distance",
        "geo_json_path",
        "compiled_on",
    ]
    fieldsets = [
        (None, {"fields": ["id", "name", "description", "owner", "subscription"]}),
        (_("Contact"), {"fields": ["phone_number", "website"]}),
        (
            _("Reuse of the public data"),
            {"fields": ["license_url", ("attribution_name", "attribution_url")]},
        ),
        (_("Status confirmations"), {"fields": ["unconfirmed_after_hours"]}),
        (_("Grooming"), {"fields": ["groomers_live"]}),
        (_("Rider reports"), {"fields": ["reports_per_day"]}),
        (_("Riders' alerts"), {"fields": ["alerts_on"]}),
        (
            _("Sign-up by text message"),
            {"fields": ["sms_countries", "sms_confirmations_per_day"]},
        ),
        (
            _("Display"),
            {
                "fields": [
                    "language",
                    ("depth_measurement", "length_measurement", "temp_measurement"),
                    ("lat", "lng", "location_derived"),
                    "time_zone",
                    ("inactive", "blocked", "hide_name", "promote_trail_hub"),
                ]
            },
        ),
        (
            _("Published (written by the compile)"),
            {
                "classes": ["collapse"],
                "fields": [
                    ("total_trails", "open_trails", "caution_trails", "closed_trails"),
                    ("total_distance", "open_distance"),
                    "geo_json_path",
                    "compiled_on",
                    "created_on",
                ],
            },
        ),
    ]

    def save_model(self, request, obj, form, change):
        changed = self.changed_fields(form)
        alerts_on = changed.pop("alerts_on", None)
        if change:
            services.change_trail_system(system=obj, **changed, actor=web_actor(request))
            if alerts_on is not None:
                self._set_alerts(obj, alerts_on, request)
            return
        fields = {
            name: value
            for name, value in form.cleaned_data.items()
            if name not in ("owner", "alerts_on")
        }
        owner = form.cleaned_data.get("owner")
        system = services.create_trail_system(
            name=fields.pop("name"),
            owner_uid=owner.pk if owner else request.user.pk,
            actor=web_actor(request),
            **fields,
        )
        self.stand_for(obj, system)
        if alerts_on is False:
            self._set_alerts(system, False, request)

    def _set_alerts(self, system: TrailSystem, on: bool, request) -> None:
        if on:
            alerts_services.turn_alerts_on(system=system)
        else:
            alerts_services.turn_alerts_off(system=system, actor=web_actor(request))

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if "time_zone" in form.base_fields:
            form.base_fields["time_zone"] = time_zone_field(obj)
        return form

    def get_urls(self):
        def page(view, name):
            wrapped = self.admin_site.admin_view(
                lambda request, system_id: view(self, request, system_id)
            )
            return path(f"<path:system_id>/{name}/", wrapped, name=f"trails_trailsystem_{name}")

        return [
            page(system_pages.overview, "overview"),
            page(system_pages.invite, "invite"),
            page(grooming_page.grooming, "grooming"),
            page(grooming_log_page.grooming_log, "grooming_log"),
            page(trackers_page.trackers_page, "trackers"),
            page(closures_page.closures_page, "closures"),
            page(recorder_page.recorder, "record"),
            page(recorder_page.positions, "record_positions"),
            page(recorder_page.stop, "record_stop"),
            *super().get_urls(),
        ]

    def get_readonly_fields(self, request, obj=None):
        # Ownership, plan and the legacy block are the operators' (superAdmins') to change.
        if roles.is_super(request.user):
            return self.readonly_fields
        return [*self.readonly_fields, "owner_account", "subscription", "blocked"]

    def get_fieldsets(self, request, obj=None):
        """Others see the owner as text (the account's page is the superAdmins')."""
        if roles.is_super(request.user):
            return self.fieldsets
        return [
            (name, {**options, "fields": [OWNER_TEXT.get(f, f) for f in options["fields"]]})
            for name, options in self.fieldsets
        ]

    @admin.display(description=_("owner"))
    def owner_account(self, system) -> str:
        return str(system.owner or "-")

    def save_formset(self, request, form, formset, change):
        """Roles set or members removed, each through the membership services."""
        actor = web_actor(request)
        for member_form in formset.forms:
            data = member_form.cleaned_data
            if not data or (not member_form.has_changed() and not data.get("DELETE")):
                continue
            user_id = data["id"].user_id
            if data.get("DELETE"):
                services.remove_member(system=form.instance, user_id=user_id, actor=actor)
            else:
                services.set_member(
                    system=form.instance, user_id=user_id, role=data["role"], actor=actor
                )
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []


class TrailActivityForm(forms.ModelForm):
    # A blank first choice, so that the inline's empty extra row is left out of an untouched save
    # instead of posting the first activity (and then adding it, or refusing it as a duplicate).
    value = forms.ChoiceField(
        label=_("activity"),
        choices=activity_choices,
        error_messages={
            "invalid_choice": _("Unknown activity %(value)s; choose one from the list.")
        },
    )

    class Meta:
        model = TrailActivity
        fields = list(ACTIVITY.names(WEB_APP))


class TrailActivityInline(RoleScopedTabularInline):
    """The only place activities are added to a trail (the API may only change them)."""

    model = TrailActivity
    form = TrailActivityForm


class LinesField(forms.CharField):
    """A list of names, one per line (a trail's categories), rather than the JSON list it is
    stored as: a manager types `Nordic`, not `["Nordic"]`."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def to_python(self, value) -> list[str]:
        return [line.strip() for line in super().to_python(value).splitlines() if line.strip()]


class TrailForm(forms.ModelForm):
    categories = LinesField(
        label=_("Categories"), required=False, help_text=_("One per line, e.g. Nordic.")
    )

    class Meta:
        model = Trail
        fields = ["trail_system", *TRAIL.names(WEB_APP), "geometry"]
        help_texts = {"geometry": _("GeoJSON LineString or MultiLineString, [lng, lat] positions.")}
        widgets = {"geometry": GeometryMapWidget}

    def clean_geometry(self) -> dict:
        try:
            return validate_geometry(self.cleaned_data["geometry"])
        except GeometryError as error:
            raise ValidationError(str(error)) from None


MOVED_TO_TRASH = _("Moved to the trash, where they can be restored: %(count)d.")


class ToTrashAdmin(BulkDeleteThroughService):
    """A live trail or point: Delete (its page) and the list's one trash action, "Move
    selected to the trash" (the admin's "Delete selected", with its confirmation page), call
    the services the API's DELETE calls, which move it to the trash; it is restored from
    there, and deleted for good only from there, by an Administrator."""

    delete_confirmation_template = "webapp/trash_confirmation.html"
    delete_selected_confirmation_template = "webapp/trash_selected_confirmation.html"
    deleted_message = MOVED_TO_TRASH
    not_deleted_message = _("Not moved to the trash")

    def get_actions(self, request):
        """One name for one thing: the admin's "Delete selected" moves to the trash here."""
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            function, name, _description = actions["delete_selected"]
            actions["delete_selected"] = (function, name, _("Move selected to the trash"))
        return actions

    def get_deleted_objects(self, objs, request):
        """Only the rows themselves move; nothing related is deleted, so nothing needs a
        permission or is protected."""
        return [str(obj) for obj in objs], {}, set(), []

    def log_deletions(self, request, queryset) -> list:
        """Nothing is deleted: the status history records the move (field `trashed`)."""
        return []

    def response_delete(self, request, obj_display, obj_id):
        self.message_user(
            request,
            _("The %(name)s “%(obj)s” was moved to the trash, where it can be restored.")
            % {"name": self.opts.verbose_name, "obj": obj_display},
            messages.SUCCESS,
        )
        changelist = reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist")
        preserved = {"preserved_filters": self.get_preserved_filters(request), "opts": self.opts}
        return HttpResponseRedirect(add_preserved_filters(preserved, changelist))


@admin.display(description=_("Status history (newest first)"))
def status_history(obj) -> str:
    """The latest status changes, and the History page that holds them all."""
    if obj is None or obj.pk is None:
        return "-"
    row_name = obj._meta.model_name
    # In the system's zone, as its History page says them.
    with timezone.override(zone_of(obj.trail_system)):
        table = render_to_string(
            "webapp/status_history_table.html", {"rows": history_page.latest_changes(obj)}
        )
    return format_html(
        '{}<p><a href="{}" class="history-link">{}</a></p>',
        table,
        reverse(f"admin:trails_{row_name}_history", args=[obj.pk]),
        _("The whole history, by date"),
    )


def activity_statuses_changed(formset) -> bool:
    """Whether the manager set an activity's status on the page (then the trail's Open or
    Caution leaves the activities as set, one by one)."""
    return any("status" in form.changed_data for form in formset.forms)


def activities_of(formset) -> list[dict] | None:
    """The activities as the inline lists them, in order; None when the inline is untouched."""
    if not formset.has_changed():
        return None
    kept = [
        form.cleaned_data
        for form in formset.forms
        if form.cleaned_data and not form.cleaned_data.get("DELETE")
    ]
    return [
        {name: data[name] for name in ACTIVITY.names(WEB_APP) if data.get(name) is not None}
        for data in sorted(kept, key=lambda data: data.get("position") or 0)
    ]


class TrailChangeList(ChangeList):
    """Trails of the page that share a name with another trail of their system say what tells
    them apart (webapp/twins.py), from one query of those names, not one per row."""

    def get_results(self, request) -> None:
        super().get_results(request)
        names = {trail.name for trail in self.result_list}
        systems = {trail.trail_system_id for trail in self.result_list}
        alike = Trail.objects.filter(trail_system_id__in=systems, name__in=names)
        details = twin_details(alike.only(*TWIN_FIELDS))
        for trail in self.result_list:
            trail.twin_words = details.get(trail.pk, "")


@admin.display(description=_("Distance (km)"), ordering="distance")
def distance_km(trail: Trail) -> str:
    """To the metre, in the page's number format, not the float's sixteen digits."""
    return number_format(round(trail.distance, 3), 3)


@admin.display(description=_("Closures"))
def closures_link(obj) -> str:
    """The trail's closed stretches, closed and reopened on their own page."""
    if obj is None or obj.pk is None:
        return "-"
    return format_html(
        '<a href="{}" class="button close-part">{}</a>',
        closures_page.closures_url(obj),
        _("Close part of this trail"),
    )


@admin.register(Trail)
class TrailAdmin(ChangedInSystemZone, StatusHistoryMixin, ToTrashAdmin, ServiceAdmin):
    """Saved by one service call (create_trail or change_trail) with the inline's activities,
    so the web app applies the API's rules: Closed closes every activity, a new geometry gets
    new elevations, every status change is recorded. Open or Caution also opens the Closed
    activities, unless the manager set activities' statuses on the page."""

    form = TrailForm
    row_name = "trail"
    rows_name = "trails"
    delete_function = staticmethod(trash.trash_trail)
    bulk_delete_function = staticmethod(trash.trash_trails)
    inlines = [TrailActivityInline]
    actions = STATUS_ACTIONS
    # Status next to the name: what a phone's narrow list shows without scrolling sideways.
    list_display = ["name", "status", "activity_list", "trail_system", "difficulty", distance_km]
    list_filter = ["status", ActivityFilter, CategoryFilter, "difficulty", "trail_system"]
    # System by system, each in its order: the index a page of half a million trails reads.
    ordering = ["trail_system_id", "order"]
    search_fields = ["name"]
    list_select_related = ["trail_system"]
    autocomplete_fields = ["trail_system"]
    readonly_fields = [
        "id",
        closures_link,
        distance_km,
        "lat",
        "lng",
        "created_on",
        "created_by",
        "updated_by",
        "followers",
        status_history,
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("activities")

    @admin.display(description=_("riders following it"))
    def followers(self, trail) -> int:
        """How many riders follow the trail for alerts (a count; never who)."""
        return followers_of_trail(trail) if trail.pk else 0

    def get_changelist(self, request, **kwargs):
        return TrailChangeList

    def get_list_display(self, request):
        """The name column says what tells a trail apart from one of the same name."""
        shown = super().get_list_display(request)
        return ["name_told_apart" if column == "name" else column for column in shown]

    @admin.display(description=_("name"), ordering="name")
    def name_told_apart(self, trail) -> str:
        """The name, and for a trail that shares it what tells it apart (TrailChangeList)."""
        words = getattr(trail, "twin_words", "")
        return f"{trail.name} ({words})" if words else trail.name

    def get_ordering(self, request):
        """A search is served by the trigram index and its few rows sorted by name, rather
        than half a million trails walked in system order for a term thought common."""
        return ["name"] if request.GET.get("q") else super().get_ordering(request)

    @admin.display(description=_("activities"))
    def activity_list(self, trail) -> str:
        return ", ".join(
            f"{activity_label(a.value)} ({a.get_status_display()})" for a in trail.activities.all()
        )

    def save_model(self, request, obj, form, change):
        """Nothing here: save_related writes the trail and its activities in one call."""

    def save_related(self, request, form, formsets, change):
        activities = activities_of(formsets[0]) if formsets else None
        if change:
            services.change_trail(
                trail=form.instance,
                **self.changed_fields(form),
                actor=web_actor(request),
                activity_list=activities,
                reopen_activities=not (formsets and activity_statuses_changed(formsets[0])),
            )
            return
        fields = dict(form.cleaned_data)
        trail = services.create_trail(
            system=fields.pop("trail_system"),
            **fields,
            actor=web_actor(request),
            activity_list=activities or (),
        )
        self.stand_for(form.instance, trail)

    def construct_change_message(self, request, form, formsets, add=False):
        """The trail's own fields; the inline is written by the service, not by its formset."""
        return super().construct_change_message(request, form, [], add)


class PointForm(forms.ModelForm):
    class Meta:
        model = Point
        fields = ["trail_system", *POINT.names(WEB_APP), "lat", "lng"]


@admin.register(Point)
class PointAdmin(ChangedInSystemZone, StatusHistoryMixin, ToTrashAdmin, ServiceAdmin):
    row_name = "point"
    rows_name = "points"
    delete_function = staticmethod(trash.trash_point)
    bulk_delete_function = staticmethod(trash.trash_points)
    list_display = ["name", "status", "trail_system", "marker_class", "hidden", "created_on"]
    list_filter = ["status", "marker_class", "trail_system"]
    ordering = ["trail_system_id", "-created_on"]  # as the system's points index reads
    search_fields = ["name", "id"]
    list_select_related = ["trail_system"]
    autocomplete_fields = ["trail_system"]
    form = PointForm
    readonly_fields = ["id", "created_on", "created_by", "updated_by", status_history]

    def save_model(self, request, obj, form, change):
        if change:
            services.change_point(point=obj, **self.changed_fields(form), actor=web_actor(request))
            return
        fields = dict(form.cleaned_data)
        point = services.create_point(
            system=fields.pop("trail_system"), **fields, actor=web_actor(request)
        )
        self.stand_for(obj, point)


class TrashAdmin(ChangedInSystemZone, SystemLinkOnViewMixin, BulkDeleteThroughService):
    """Trashed rows, read-only; restore puts them back, delete removes them for good."""

    restore_function = None
    actions = ["restore"]
    list_display = ["name", "trail_system", "trashed_on", "trashed_by"]
    list_filter = ["trail_system"]
    search_fields = ["name", "id"]
    list_select_related = ["trail_system"]
    ordering = ["-trashed_on"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_restore_permission(self, request) -> bool:
        live_model = self.model._meta.proxy_for_model._meta
        return request.user.has_perm(f"{live_model.app_label}.change_{live_model.model_name}")

    @admin.action(description=_("Restore selected from the trash"), permissions=["restore"])
    def restore(self, request, queryset):
        apply_to_selected(
            self,
            request,
            queryset,
            self.restore_function,
            done=_("Restored from the trash: %(count)d."),
            not_done=_("Not restored"),
        )


@admin.register(TrashedTrail)
class TrashedTrailAdmin(TrashAdmin):
    row_name = "trail"
    rows_name = "trails"
    restore_function = staticmethod(trash.restore_trails)
    delete_function = staticmethod(trash.delete_trail)
    bulk_delete_function = staticmethod(trash.delete_trails)


@admin.register(TrashedPoint)
class TrashedPointAdmin(TrashAdmin):
    row_name = "point"
    rows_name = "points"
    restore_function = staticmethod(trash.restore_points)
    delete_function = staticmethod(trash.delete_point)
    bulk_delete_function = staticmethod(trash.delete_points)
