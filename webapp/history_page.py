"""The History page of a trail, a point and a trail system: the status history (who, when,
by which path, from -> to, per activity), newest first, a page at a time, filtered by date.
A system's page holds every trail and point of it. It replaces the admin's own History,
which only knows the admin's log (empty: the services write, not the admin's forms)."""

from dataclasses import dataclass
from datetime import datetime

from django import forms
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apikeys.models import User
from grooming.models import GroomedTrail
from grooming.services import GROOMED_FIELD
from trails import selectors
from trails.enums import Difficulty, TrailStatus
from trails.models import Point, StatusChange, Trail, TrailSystem
from trails.timezones import zone_name
from webapp.pagination import CappedCountPaginator
from webapp.trail_admin import activity_label
from webapp.zones import in_system_zone

CHANGES_PER_PAGE = 50
# The changes the trail's and the point's own page shows, above the link to the rest.
LATEST_ON_ROW_PAGE = 5

# The history's field names (the API's, trails.history) and values, in the person's words.
HISTORY_FIELDS = {
    "status": _("Status"),
    "difficulty": _("Difficulty"),
    "waitTime": _("Wait time"),
    "trashed": _("In the trash"),
    "groomed": _("Groomed"),
}
HISTORY_VALUES = {
    "status": dict(TrailStatus.choices),
    "difficulty": dict(Difficulty.choices),
    "trashed": {True: _("Yes"), False: _("No")},
}


def history_value(field: str, value) -> str | datetime:
    """A recorded value as a label ("Open", "Circle"), not as JSON; a grooming's time as a
    time, which the page writes in its zone; none is a dash."""
    if value is None:
        return "-"
    if field == GROOMED_FIELD:
        return datetime.fromisoformat(value)
    return str(HISTORY_VALUES.get(field, {}).get(value, value))


@dataclass(frozen=True)
class HistoryRow:
    """One change as the page shows it."""

    at: object
    subject: str
    subject_url: str
    field: str
    activity: str
    old: str | datetime
    new: str | datetime
    who: str
    via: str


def _subject(change: StatusChange) -> tuple[str, str]:
    """The trail's or point's name, and its page (a trashed row's is in the trash)."""
    row = change.trail if change.trail_id else change.point
    model = row._meta.model_name
    page = (
        f"admin:trails_trashed{model}_change" if row.is_trashed else f"admin:trails_{model}_change"
    )
    return row.name, reverse(page, args=[row.pk])


def _groomers(changes: list[StatusChange]) -> dict[tuple[str, datetime], str]:
    """(trail id, groomedAt) -> the name of the tracker whose session groomed it: the machine
    groomed, not the account that once made the tracker (one query for the page)."""
    groomed = [c for c in changes if c.field == GROOMED_FIELD and c.trail_id and c.new_value]
    if not groomed:
        return {}
    rows = GroomedTrail.objects.filter(
        trail_id__in={change.trail_id for change in groomed},
        grooming_pass__groomed_at__in={datetime.fromisoformat(c.new_value) for c in groomed},
        grooming_pass__session__isnull=False,
    ).values_list("trail_id", "grooming_pass__groomed_at", "grooming_pass__session__tracker__name")
    return {(trail_id, at): name for trail_id, at, name in rows}


def history_rows(changes: list[StatusChange]) -> list[HistoryRow]:
    """The changes in words: each account by its e-mail address, a tracker's grooming by the
    tracker's name (one query each for the page)."""
    accounts = {
        user.pk: str(user)
        for user in User.objects.filter(pk__in={change.uid for change in changes if change.uid})
    }
    groomers = _groomers(changes)
    rows = []
    for change in changes:
        subject, subject_url = _subject(change)
        rows.append(
            HistoryRow(
                at=change.at,
                subject=subject,
                subject_url=subject_url,
                field=str(HISTORY_FIELDS.get(change.field, change.field)),
                activity=activity_label(change.activity) if change.activity else "",
                old=history_value(change.field, change.old_value),
                new=history_value(change.field, change.new_value),
                who=_groomer(groomers, change) or accounts.get(change.uid, change.uid) or "-",
                via=f"{change.get_via_display()} {change.key_id}".strip(),
            )
        )
    return rows


def _groomer(groomers: dict[tuple[str, datetime], str], change: StatusChange) -> str | None:
    if change.field != GROOMED_FIELD or not change.new_value:
        return None
    return groomers.get((change.trail_id, datetime.fromisoformat(change.new_value)))


class HistoryFilterForm(forms.Form):
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            self.add_error("until", _("The end date is before the start date."))
        return cleaned


def latest_changes(row: Trail | Point) -> list[HistoryRow]:
    """The few newest changes of a trail or point, for its own page."""
    name = "trail" if isinstance(row, Trail) else "point"
    return history_rows(list(selectors.status_changes(**{name: row})[:LATEST_ON_ROW_PAGE]))


class StatusHistoryMixin:
    """The model admin's History page is the status history of the row (a trail, a point, a
    system), seen by whoever may see the row."""

    def history_view(self, request, object_id, extra_context=None):
        row = self.get_object(request, unquote(object_id))
        if not self.has_view_or_change_permission(request, row):
            raise PermissionDenied
        system = row if isinstance(row, TrailSystem) else row.trail_system
        return in_system_zone(
            system, lambda: self._history_page(request, row, system, extra_context)
        )

    def _history_page(self, request, row, system: TrailSystem, extra_context):
        form = HistoryFilterForm(request.GET or None)
        dates = form.cleaned_data if form.is_valid() else {}
        target = {
            TrailSystem: "system",
            Trail: "trail",
            Point: "point",
        }[type(row)]
        changes = selectors.status_changes(
            **{target: row}, since=dates.get("since"), until=dates.get("until")
        )
        # A busy system's years of changes are counted only up to a cap, as the lists are.
        page = CappedCountPaginator(changes, CHANGES_PER_PAGE).get_page(request.GET.get("page"))
        kept = request.GET.copy()
        kept.pop("page", None)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Status history of %(name)s") % {"name": row},
            "subtitle": None,
            "opts": self.opts,
            "object": row,
            "app_label": self.opts.app_label,
            "form": form,
            "page": page,
            "rows": history_rows(list(page.object_list)),
            "whole_system": target == "system",
            "zone": zone_name(system),
            "filter_query": kept.urlencode(),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "webapp/status_history.html", context)
