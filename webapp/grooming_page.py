"""A trail system's Grooming page: upload a groomer's track, review its coverage on a map (the
service's dry run), save the same pass; and the recent passes, each drawn over the trails.

Between the review and the save the track travels back as a hidden field holding its parsed
lines (no file is kept on the server); the save parses it again and the service validates it
again, so the field is trusted no more than an upload."""

import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.errors import DomainError
from grooming import selectors
from grooming.services import (
    DEFAULT_CONDITION,
    DEFAULT_TOLERANCE_METERS,
    TOLERANCE_RANGE,
    GroomingResult,
    pass_time,
    record_grooming_track,
    shows_until,
)
from grooming.tracks import Track, TrackError, parse_geojson, parse_upload
from trails.models import TrailSystem
from trails.selectors import trails_of_system
from trails.timezones import zone_name
from webapp import roles
from webapp.actors import web_actor
from webapp.refusals import add_refusal
from webapp.system_pages import system_or_404
from webapp.trail_admin import surface_condition_choices
from webapp.zones import in_system_zone, zone_now

# The API's limit on an uploaded track.
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
# The reviewed track re-posted for the save: [lng, lat] to 6 decimals (about 0.1 m), well
# under the request's DATA_UPLOAD_MAX_MEMORY_SIZE for any track the upload limit lets in.
MAX_TRACK_FIELD_CHARS = 1_500_000
COORDINATE_DECIMALS = 6


def compact_track(track: Track) -> str:
    """The track's lines as the hidden field carries them: positions only, rounded."""
    return json.dumps(
        {
            "type": "MultiLineString",
            "coordinates": [
                [[round(p[0], COORDINATE_DECIMALS), round(p[1], COORDINATE_DECIMALS)] for p in line]
                for line in track.lines
            ],
        },
        separators=(",", ":"),
    )


class GroomingForm(forms.Form):
    file = forms.FileField(
        label=_("Track (GPX or GeoJSON)"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": ".gpx,.geojson,.json"}),
    )
    tolerance_meters = forms.FloatField(
        label=_("Tolerance (m)"),
        initial=DEFAULT_TOLERANCE_METERS,
        min_value=TOLERANCE_RANGE[0],
        max_value=TOLERANCE_RANGE[1],
        help_text=_("How far from the track a trail still counts as groomed."),
    )
    condition = forms.ChoiceField(
        label=_("Condition"), choices=surface_condition_choices, initial=DEFAULT_CONDITION
    )
    groomed_at = forms.DateTimeField(
        label=_("Groomed at"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    track = forms.CharField(
        required=False, widget=forms.HiddenInput, max_length=MAX_TRACK_FIELD_CHARS
    )
    # "Record as groomed now": the review found the pass's own time too old to show.
    groomed_now = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read in the page's time zone: said, with the time there now (per form, not at import).
        self.fields["groomed_at"].help_text = _(
            "Leave empty for the time of the track's last point, else now. Times are in %(zones)s."
        ) % {"zones": zone_now()}

    def clean(self):
        cleaned = super().clean()
        try:
            cleaned["parsed_track"] = self._read_track(cleaned)
        except TrackError as error:
            self.add_error("file", str(error))
        return cleaned

    def _read_track(self, cleaned: dict) -> Track | None:
        """The reviewed track when re-posted for the save, else the uploaded file."""
        if cleaned.get("track"):
            try:
                return parse_geojson(json.loads(cleaned["track"]))
            except ValueError:
                damaged = _("The reviewed track was damaged; upload the file again.")
                raise TrackError(damaged) from None
        upload = cleaned.get("file")
        if upload is None:
            if "track" in self.errors:
                return None
            raise TrackError(_("Choose a GPX or GeoJSON file."))
        if upload.size > MAX_UPLOAD_BYTES:
            raise TrackError(_("The file is larger than 2 MB."))
        return parse_upload(upload.read())


def map_data(system: TrailSystem, track: dict | None, groomed_ids: list[str]) -> dict:
    """What webapp/grooming_map.js draws: the system's trails, those groomed, the track."""
    return {
        "trails": {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "id": trail.pk,
                    "properties": {"name": trail.name, "groomed": trail.pk in groomed_ids},
                    "geometry": trail.geometry,
                }
                for trail in trails_of_system(system, with_geometry=True)
                if trail.geometry
            ],
        },
        "track": track,
    }


def grooming(model_admin, request, system_id: str):
    """Upload, review (dry run) and save a grooming pass; list and show the recent passes;
    in the system's zone, which the "Groomed at" field reads and names."""
    system = system_or_404(request, system_id, roles.MEMBER)
    return in_system_zone(system, lambda: _grooming_page(model_admin, request, system))


def _grooming_page(model_admin, request, system: TrailSystem):
    form = GroomingForm(request.POST or None, request.FILES or None)
    saving = "save" in request.POST or "groomed_now" in request.POST
    result: GroomingResult | None = None
    reviewed_track = ""
    if request.method == "POST" and form.is_valid():
        track = form.cleaned_data["parsed_track"]
        groomed_at = timezone.now() if form.cleaned_data["groomed_now"] else None
        groomed_at = pass_time(
            track=track, groomed_at=groomed_at or form.cleaned_data["groomed_at"]
        )
        if saving and shows_until(groomed_at) <= timezone.now():
            # Nothing would be published: shown again as reviewed, with the reason.
            form.add_error(None, expired_refusal(groomed_at))
            saving = False
        try:
            result = record_grooming_track(
                system=system,
                track=track,
                actor=web_actor(request),
                tolerance_meters=form.cleaned_data["tolerance_meters"],
                condition=form.cleaned_data["condition"],
                groomed_at=groomed_at,
                dry_run=not saving,
            )
        except DomainError as error:
            add_refusal(form, error)
        else:
            if saving:
                messages.success(request, saved_message(result))
                return HttpResponseRedirect(f"{grooming_url(system)}?pass={result.track_id}")
            reviewed_track = compact_track(track)
            if len(reviewed_track) > MAX_TRACK_FIELD_CHARS:
                form.add_error("file", _("The track is too long to review here; use the API."))
                result = None
    shown_pass = _shown_pass(request, system)
    if result is not None:
        drawn = map_data(
            system,
            json.loads(reviewed_track),
            [trail.trail_id for trail in result.trails],
        )
    elif shown_pass is not None:
        drawn = map_data(
            system,
            shown_pass.track,
            [groomed.trail_id for groomed in shown_pass.groomed_trails.all()],
        )
    else:
        drawn = map_data(system, None, [])
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Grooming of %(system)s") % {"system": system.name},
        "zone": zone_name(system),
        "opts": model_admin.opts,
        "system": system,
        "form": form,
        "result": result,
        "review": {
            "track": reviewed_track,
            "tolerance_meters": form.cleaned_data.get("tolerance_meters") if result else None,
            "condition": form.cleaned_data.get("condition") if result else None,
            "groomed_at": result.groomed_at.isoformat() if result else None,
        },
        "groomed_now_until": shows_until(timezone.now()),
        "passes": passes_in_words(selectors.recent_passes(system)),
        "shown_pass": shown_pass,
        "map_data": drawn,
        "tile_url": settings.MAP_TILE_URL,
        "tile_attribution": settings.MAP_TILE_ATTRIBUTION,
    }
    return TemplateResponse(request, "webapp/grooming.html", context)


def expired_refusal(groomed_at) -> str:
    return _(
        "Not saved: groomed at %(at)s, this grooming would have left the map at %(until)s, "
        "so nothing would be published. Record it as groomed now, or enter the time it was "
        "groomed."
    ) % {"at": shown_time(groomed_at), "until": shown_time(shows_until(groomed_at))}


def shown_time(moment) -> str:
    return date_format(localtime(moment), "DATETIME_FORMAT")


def saved_message(result: GroomingResult) -> str:
    count = len(result.trails)
    return ngettext(
        "Grooming saved: %(count)d trail groomed, shown on the map until %(until)s",
        "Grooming saved: %(count)d trails groomed, shown on the map until %(until)s",
        count,
    ) % {"count": count, "until": shown_time(result.shows_until)}


def passes_in_words(passes: list) -> list:
    """Each pass with `condition_label`, its condition in the page's language."""
    words = dict(surface_condition_choices())
    for grooming_pass in passes:
        grooming_pass.condition_label = words.get(grooming_pass.condition, grooming_pass.condition)
    return passes


def _shown_pass(request, system: TrailSystem):
    """The pass named by ?pass=, when it is one of this system's."""
    pass_id = request.GET.get("pass")
    if not pass_id:
        return None
    shown = selectors.grooming_pass(pass_id)
    if shown is None or shown.trail_system_id != system.pk:
        raise Http404
    return shown


def grooming_url(system: TrailSystem) -> str:
    return reverse("admin:trails_trailsystem_grooming", args=[system.pk])
