"""A trail system's Trackers page: the groomers' phones and machines that post their positions
(live grooming). Create one (its secret, tracking URL and QR code are shown this once, with
the set-up steps of each app), see when each last sent a position, end a running session,
revoke a tracker."""

import segno
from django import forms
from django.contrib import messages
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError
from grooming import trackers
from grooming.models import Tracker
from grooming.services import DEFAULT_CONDITION
from grooming.sessions import end_running_session
from grooming.trackers import NAME_MAX_LENGTH
from trails.models import TrailSystem
from trails.timezones import zone_name
from webapp import roles
from webapp.actors import web_actor
from webapp.refusals import add_refusal
from webapp.system_pages import system_or_404
from webapp.trail_admin import surface_condition_choices
from webapp.zones import in_system_zone


class TrackerForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX_LENGTH,
        help_text=_("The groomer or the machine, e.g. PistenBully 1."),
    )
    condition = forms.ChoiceField(
        label=_("Condition"),
        choices=surface_condition_choices,
        initial=DEFAULT_CONDITION,
        help_text=_("Posted on each trail it grooms."),
    )


def trackers_url(system: TrailSystem) -> str:
    return reverse("admin:trails_trailsystem_trackers", args=[system.pk])


def _act(request, system: TrailSystem) -> Tracker | None:
    """Revoke a tracker (once confirmed), or end its running session, as the button pressed
    says; the tracker whose revoking waits for its confirmation."""
    tracker = trackers.trackers_of_system(system).filter(pk=request.POST.get("tracker")).first()
    if tracker is None:
        messages.error(request, _("That tracker is gone; the list is up to date again."))
    elif request.POST.get("action") == "revoke" and not request.POST.get("confirmed"):
        return tracker
    elif request.POST.get("action") == "revoke":
        trackers.revoke_tracker(tracker=tracker, actor=web_actor(request))
        messages.success(request, _("Tracker %(name)s revoked.") % {"name": tracker.name})
    elif end_running_session(tracker=tracker):
        messages.success(request, _("Grooming of %(name)s ended.") % {"name": tracker.name})
    return None


def trackers_page(model_admin, request, system_id: str):
    system = system_or_404(request, system_id, roles.MEMBER)
    return in_system_zone(system, lambda: _trackers_page(model_admin, request, system))


def _trackers_page(model_admin, request, system: TrailSystem):
    form = TrackerForm(request.POST if request.POST.get("action") == "create" else None)
    created = revoking = None
    if request.method == "POST" and request.POST.get("action") in ("revoke", "end"):
        revoking = _act(request, system)
        if revoking is None:
            return HttpResponseRedirect(trackers_url(system))
    if request.method == "POST" and form.is_valid():
        try:
            made = trackers.create_tracker(
                system=system,
                name=form.cleaned_data["name"],
                condition=form.cleaned_data["condition"],
                actor=web_actor(request),
            )
        except DomainError as error:
            add_refusal(form, error)
        else:
            addresses = trackers.tracking_addresses(made.secret)
            created = {
                "tracker": made.tracker,
                "secret": made.secret,
                **addresses,
                "qr_svg": segno.make(addresses["tracking_url"], error="m").svg_inline(
                    scale=4, title=addresses["tracking_url"]
                ),
            }
            form = TrackerForm()
    words = dict(surface_condition_choices())
    rows = list(trackers.trackers_of_system(system))
    for row in rows:
        row.condition_label = words.get(row.condition, row.condition)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Trackers of %(system)s") % {"system": system.name},
        "opts": model_admin.opts,
        "system": system,
        "form": form,
        "created": created,
        "revoking": revoking,
        "trackers": rows,
        "zone": zone_name(system),
    }
    response = TemplateResponse(request, "webapp/trackers.html", context)
    if created:
        patch_cache_control(response, no_store=True)  # the secret is on this page only
    return response
