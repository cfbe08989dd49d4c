"""A trail's "Close part of this trail" page, from the board and the trail's page: tap the two
ends of the stretch on the trail (snapped to its line and shown as they are placed, with the
length), choose the reason and until when (or a later start: a planned closure), save; each
closure of the trail is listed with a one-tap Reopen. The writes are the API's services."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from closures import selectors, services
from closures.models import NOTE_MAX
from closures.reasons import Reason
from closures.services import Place
from core.errors import DomainError
from trails.models import Trail, TrailSystem
from trails.timezones import zone_of
from webapp import roles
from webapp.actors import web_actor
from webapp.refusals import add_refusal
from webapp.system_pages import system_or_404

LOCAL_INPUT = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class ClosureForm(forms.Form):
    from_lat = forms.FloatField(required=False, widget=forms.HiddenInput)
    from_lng = forms.FloatField(required=False, widget=forms.HiddenInput)
    to_lat = forms.FloatField(required=False, widget=forms.HiddenInput)
    to_lng = forms.FloatField(required=False, widget=forms.HiddenInput)
    reason = forms.ChoiceField(label=_("Reason"), choices=Reason.choices)
    starts_at = forms.DateTimeField(
        label=_("From"),
        required=False,
        widget=LOCAL_INPUT,
        help_text=_("Empty: now. A later time plans the closure ahead."),
    )
    ends_at = forms.DateTimeField(
        label=_("Until"),
        required=False,
        widget=LOCAL_INPUT,
        help_text=_("Empty: until you reopen it."),
    )
    note = forms.CharField(label=_("Note"), required=False, max_length=NOTE_MAX)
    detour = forms.CharField(label=_("Detour"), required=False, max_length=NOTE_MAX)

    def end(self, prefix: str) -> Place | None:
        lat, lng = self.cleaned_data.get(f"{prefix}_lat"), self.cleaned_data.get(f"{prefix}_lng")
        return None if lat is None or lng is None else Place(lat=lat, lng=lng)


def closures_url(trail: Trail) -> str:
    return reverse("admin:trails_trailsystem_closures", args=[trail.trail_system_id]) + (
        f"?trail={trail.pk}"
    )


def _trail(system: TrailSystem, trail_id: str | None) -> Trail:
    trail = Trail.objects.filter(trail_system=system, pk=trail_id or "").first()
    if trail is None:
        raise Http404
    return trail


def _local(moment, zone):
    return moment.replace(tzinfo=zone) if moment is not None else None


def _save(request, trail: Trail, form: ClosureForm) -> bool:
    zone = zone_of(trail.trail_system)
    fields = {
        "reason": form.cleaned_data["reason"],
        "note": form.cleaned_data["note"],
        "detour": form.cleaned_data["detour"],
        "ends_at": _local(form.cleaned_data["ends_at"], zone),
        "starts_at": _local(form.cleaned_data["starts_at"], zone),
    }
    for name, prefix in (("start", "from"), ("end", "to")):
        if (place := form.end(prefix)) is not None:
            fields[name] = place
    try:
        services.create_closure(trail=trail, actor=web_actor(request), **fields)
    except DomainError as error:
        add_refusal(form, error)
        return False
    messages.success(request, _("The stretch of %(trail)s is closed.") % {"trail": trail.name})
    return True


def closures_page(model_admin, request, system_id: str):
    system = system_or_404(request, system_id, roles.MEMBER)
    trail = _trail(system, request.GET.get("trail"))
    if request.method == "POST" and request.POST.get("action") == "reopen":
        shown = selectors.closures_of_trail(trail.pk, timezone.now())
        found = [c for c in shown if c.pk == request.POST.get("closure")]
        if found:
            services.end_closure(closure=found[0], actor=web_actor(request))
            messages.success(request, _("The stretch is open again."))
        return HttpResponseRedirect(closures_url(trail))
    form = ClosureForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid() and _save(request, trail, form):
        return HttpResponseRedirect(closures_url(trail))
    now = timezone.now()
    closures = selectors.shown(selectors.closures_of_trail(trail.pk, now), now)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Close part of %(trail)s") % {"trail": trail.name},
        "opts": model_admin.opts,
        "system": system,
        "trail": trail,
        "form": form,
        "closures": closures,
        "zone": zone_of(system),
        "geometry": trail.geometry,
        "tile_url": settings.MAP_TILE_URL,
        "tile_attribution": settings.MAP_TILE_ATTRIBUTION,
    }
    return TemplateResponse(request, "webapp/closures.html", context)
