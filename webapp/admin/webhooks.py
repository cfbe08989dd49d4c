"""The web app for webhooks (an Administrator's): register an endpoint and see its signing
secret once, change or turn it off, rotate the secret, send a test event; an endpoint paused
after a day of failures says since when and why, with Resume and "Send the failed ones
again"; each endpoint's deliveries (time, event, response code, duration, attempts) with
"Send again"."""

import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.text import format_lazy
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.events import EVENT_TYPES
from trails.models import TrailSystem
from webapp import roles
from webapp.actors import web_actor
from webapp.admin.base import (
    DeleteThroughService,
    ReadOnlyAdmin,
    ServiceAdmin,
    system_overview_link,
)
from webapp.zones import ListedInSystemZone
from webhooks import services
from webhooks.models import EVENT_LABELS, WebhookDelivery, WebhookEndpoint

# Lazy, so that each page says them in its own language (an f-string here read them once, in
# English, at import).
EVENT_CHOICES = [
    (event, format_lazy("{} ({})", EVENT_LABELS[event], event)) for event in EVENT_TYPES
]


def event_text(types) -> str:
    return ", ".join(str(EVENT_LABELS.get(event, event)) for event in types)


def sending_failed_again(count: int) -> str:
    return _("Sending again: %(count)d failed delivery(ies), under their webhook-id.") % {
        "count": count
    }


def moment(value) -> str:
    return date_format(localtime(value), "DATETIME_FORMAT") if value else "-"


class WebhookForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        label=_("Events"),
        choices=EVENT_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("What is posted to this address."),
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["trail_system", "url", "events", "active"]
        labels = {"url": _("Address (URL)")}
        help_texts = {
            "url": _(
                "The receiver's https:// address, e.g. from your website, chat or dashboard. "
                "It must be reachable on the internet."
            ),
            "active": _("Untick to stop sending; nothing is lost until you delete it."),
        }
        widgets = {"url": forms.URLInput(attrs={"size": 70})}


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ListedInSystemZone, DeleteThroughService, ServiceAdmin):
    """Written through webhooks.services, as the API does."""

    row_name = "endpoint"
    delete_function = staticmethod(services.delete_endpoint)
    form = WebhookForm
    list_display = ["url", "trail_system", "event_list", "active", "health"]
    list_filter = ["trail_system", "active"]
    list_select_related = ["trail_system"]
    search_fields = ["url"]
    change_form_template = "webapp/webhook_change_form.html"

    @admin.display(description=_("Events"))
    def event_list(self, endpoint) -> str:
        return event_text(endpoint.events)

    actions = ["resume", "send_failed_again"]

    @admin.display(description=_("Health"))
    def health(self, endpoint) -> str:
        if endpoint.paused_on:
            return _(
                "Paused since %(when)s, because %(count)d attempts in a row failed; "
                "the last: %(why)s"
            ) % {
                "when": moment(endpoint.paused_on),
                "count": endpoint.failures,
                "why": endpoint.pause_reason,
            }
        if endpoint.failing_since:
            return _("Failing since %(when)s; next attempt %(next)s") % {
                "when": moment(endpoint.failing_since),
                "next": moment(endpoint.backoff_until),
            }
        return _("Working") if endpoint.active else _("Off")

    @admin.action(description=_("Resume (send what waits, in order)"), permissions=["change"])
    def resume(self, request, queryset):
        rows = list(self.scoped(request, queryset, "change"))
        for endpoint in rows:
            services.resume_endpoint(endpoint=endpoint, actor=web_actor(request))
        self.message_user(
            request,
            ngettext("Resumed: %(count)d webhook.", "Resumed: %(count)d webhooks.", len(rows))
            % {"count": len(rows)},
            messages.SUCCESS,
        )

    @admin.action(description=_("Send the failed ones again"), permissions=["change"])
    def send_failed_again(self, request, queryset):
        rows = list(self.scoped(request, queryset, "change"))
        count = sum(
            services.send_failed_again(endpoint=endpoint, actor=web_actor(request))
            for endpoint in rows
        )
        self.message_user(request, sending_failed_again(count), messages.SUCCESS)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["trail_system", "url", "events", "active"]
        return [system_overview_link, "url", "events", "active", "health", "created_on"]

    def get_readonly_fields(self, request, obj=None):
        return [system_overview_link, "health", "created_on"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        if change:
            if form.changed_data:
                services.change_endpoint(
                    endpoint=obj, **self.changed_fields(form), actor=web_actor(request)
                )
            return
        data = form.cleaned_data
        created = services.create_endpoint(
            system=data["trail_system"],
            url=data["url"],
            events=data["events"],
            active=data["active"],
            actor=web_actor(request),
        )
        self.stand_for(obj, created.endpoint)
        request.new_webhook_secret = created.secret

    def response_add(self, request, obj, post_url_continue=None):
        return self.secret_page(request, obj, request.new_webhook_secret, _("Webhook added"))

    def secret_page(self, request, endpoint, secret: str, title):
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "endpoint": endpoint,
            "secret": secret,
        }
        return TemplateResponse(request, "webapp/webhook_secret.html", context)

    def get_urls(self):
        def page(view, name):
            wrapped = self.admin_site.admin_view(view)
            return path(f"<path:object_id>/{name}/", wrapped, name=f"webhooks_webhook_{name}")

        return [
            page(self.send_test_view, "test"),
            page(self.rotate_secret_view, "rotate"),
            page(self.resume_view, "resume"),
            page(self.send_failed_again_view, "send-failed"),
            *super().get_urls(),
        ]

    def _changeable(self, request, object_id: str) -> WebhookEndpoint:
        endpoint = self.get_object(request, unquote(object_id))
        if not self.has_change_permission(request, endpoint):
            raise Http404
        return endpoint

    def _tool(self, request, object_id: str, act):
        """A button of the webhook's page: POST only, on a webhook the person may change;
        `act(endpoint, actor)` does it and returns the message to show and the page to open."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        endpoint = self._changeable(request, object_id)
        message, next_page = act(endpoint, web_actor(request))
        messages.success(request, message)
        return HttpResponseRedirect(next_page)

    def send_test_view(self, request, object_id: str):
        """A test event to this endpoint; then its deliveries."""

        def act(endpoint, actor):
            services.send_test_event(endpoint=endpoint, actor=actor)
            message = _("A test event is on its way to %(url)s.") % {"url": endpoint.url}
            return message, deliveries_url(endpoint)

        return self._tool(request, object_id, act)

    def resume_view(self, request, object_id: str):
        """Resume sending; then the webhook's page."""

        def act(endpoint, actor):
            waiting = services.resume_endpoint(endpoint=endpoint, actor=actor)
            message = ngettext(
                "Resumed: %(count)d waiting event goes now.",
                "Resumed: %(count)d waiting events go now, in order.",
                waiting,
            ) % {"count": waiting}
            return message, reverse("admin:webhooks_webhookendpoint_change", args=[endpoint.pk])

        return self._tool(request, object_id, act)

    def send_failed_again_view(self, request, object_id: str):
        """The failed deliveries again (resuming); then its deliveries."""

        def act(endpoint, actor):
            count = services.send_failed_again(endpoint=endpoint, actor=actor)
            return sending_failed_again(count), deliveries_url(endpoint)

        return self._tool(request, object_id, act)

    def rotate_secret_view(self, request, object_id: str):
        """A confirmation page; its POST makes the new secret and shows it once."""
        endpoint = self._changeable(request, object_id)
        if request.method == "POST":
            rotated = services.rotate_secret(endpoint=endpoint, actor=web_actor(request))
            return self.secret_page(
                request, rotated.endpoint, rotated.secret, _("New signing secret")
            )
        context = {
            **self.admin_site.each_context(request),
            "title": _("Rotate the signing secret?"),
            "opts": self.opts,
            "endpoint": endpoint,
        }
        return TemplateResponse(request, "webapp/webhook_rotate.html", context)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            context["deliveries_url"] = deliveries_url(obj)
            if obj.paused_on:
                context["pause_note"] = self.health(obj)
        return super().render_change_form(request, context, add, change, form_url, obj)


ENDPOINT_FILTER = "endpoint__id__exact"


def deliveries_url(endpoint: WebhookEndpoint) -> str:
    changelist = reverse("admin:webhooks_webhookdelivery_changelist")
    return f"{changelist}?{ENDPOINT_FILTER}={endpoint.pk}"


class EventFilter(admin.SimpleListFilter):
    title = _("event")
    parameter_name = "event"

    def lookups(self, request, model_admin):
        return [(event, EVENT_LABELS[event]) for event in EVENT_LABELS]

    def queryset(self, request, queryset):
        return queryset.filter(message__type=self.value()) if self.value() else queryset


ATTEMPT_COLUMNS = (_("Time"), _("Response code"), _("Duration (ms)"), _("Error"), _("Response"))


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ListedInSystemZone, ReadOnlyAdmin):
    """Each endpoint's deliveries, written only by the sending task; "Send again"."""

    system_of_row = "endpoint__trail_system"

    list_display = ["created_on", "event", "endpoint", "state", "code", "duration", "attempts"]
    list_filter = ["endpoint", "state", EventFilter]
    list_select_related = ["message", "endpoint"]
    search_fields = ["message__id"]
    actions = ["send_again"]
    fields = [
        "webhook_id", "event", "endpoint", "state", "created_on", "attempts", "last_attempt_on",
        "response_status", "duration_ms", "error", "next_attempt_on", "give_up_on",
        "attempt_list", "payload",
    ]  # fmt: skip
    readonly_fields = fields

    @admin.display(description=_("webhook-id"))
    def webhook_id(self, delivery) -> str:
        return delivery.message_id

    @admin.display(description=_("Event"), ordering="message__type")
    def event(self, delivery) -> str:
        return delivery.message.type

    @admin.display(description=_("Code"), ordering="response_status")
    def code(self, delivery) -> str:
        """The last answer's status code; none when no answer came (see the error)."""
        return str(delivery.response_status or "-")

    @admin.display(description=_("Duration"), ordering="duration_ms")
    def duration(self, delivery) -> str:
        return "-" if delivery.duration_ms is None else f"{delivery.duration_ms} ms"

    @admin.display(description=_("Payload"))
    def payload(self, delivery) -> str:
        shown = json.dumps(json.loads(delivery.message.payload), indent=2, ensure_ascii=False)
        return format_html("<pre class='webhook-payload'>{}</pre>", shown)

    @admin.display(description=_("Attempts, oldest first"))
    def attempt_list(self, delivery) -> str:
        attempts = delivery.attempt_records.all()
        if not attempts:
            return _("Not attempted yet.")
        head = format_html_join("", "<th>{}</th>", ((column,) for column in ATTEMPT_COLUMNS))
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            (
                (
                    moment(attempt.at),
                    attempt.response_status or "-",
                    attempt.duration_ms,
                    attempt.error or "-",
                    attempt.response_body or "-",
                )
                for attempt in attempts
            ),
        )
        return format_html(
            "<table class='webhook-attempts phone-cards'><thead><tr>{}</tr></thead>"
            "<tbody>{}</tbody></table>",
            head,
            rows,
        )

    def get_list_display(self, request):
        """One endpoint's deliveries (its page's link) need not name it on every row."""
        if ENDPOINT_FILTER in request.GET:
            return [name for name in self.list_display if name != "endpoint"]
        return self.list_display

    def _listed_endpoint(self, request) -> WebhookEndpoint | None:
        wanted = WebhookEndpoint.objects.filter(pk=request.GET.get(ENDPOINT_FILTER, ""))
        return roles.scoped(request.user, wanted.select_related("trail_system")).first()

    def listed_systems(self, request) -> list[TrailSystem]:
        """One endpoint's deliveries are in its system's zone."""
        endpoint = self._listed_endpoint(request)
        return [endpoint.trail_system] if endpoint else super().listed_systems(request)

    def changelist_view(self, request, extra_context=None):
        endpoint = self._listed_endpoint(request)
        if endpoint is not None:
            title = _("Deliveries to %(url)s") % {"url": endpoint.url}
            extra_context = {"title": title, **(extra_context or {})}
        return super().changelist_view(request, extra_context)

    def has_resend_permission(self, request) -> bool:
        return request.user.has_perm("webhooks.resend_webhookdelivery")

    @admin.action(description=_("Send again"), permissions=["resend"])
    def send_again(self, request, queryset):
        rows = list(self.scoped(request, queryset, "resend"))
        count = services.send_again(deliveries=rows, actor=web_actor(request))
        self.message_user(
            request,
            _("Sending again: %(count)d delivery(ies), under their webhook-id.") % {"count": count},
            messages.SUCCESS,
        )
