"""The web app for scheduled status changes: created, changed and deleted through
schedules.services, as the API does. Times are in the trail system's time zone."""

from copy import copy
from datetime import UTC, datetime

from django import forms
from django.contrib import admin
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from schedules import selectors, services
from schedules.models import Action, Repeat, Schedule
from trails import activities as catalog
from trails.enums import TrailStatus
from trails.models import TrailSystem
from trails.timezones import zone_names, zone_of
from webapp.actors import web_actor
from webapp.admin.base import DeleteThroughService, ServiceAdmin
from webapp.trail_admin import TrailIdsForm, TrailPickerMixin, page_language
from webapp.zones import ZONES_LISTED, ListedInSystemZone, zone_now, zones_now


def activity_choices() -> list[tuple[str, str]]:
    french = page_language() == "fr"
    return [
        ("", _("The trails themselves")),
        *(
            (value, activity.label("fr" if french else "en"))
            for value, activity in catalog.CATALOG.items()
        ),
    ]


class LocalMomentField(forms.SplitDateTimeField):
    """A day and a time on the system's wall clock, as the services take them: naive, read in
    the system's zone by the service, never in the page's."""

    def __init__(self, **kwargs):
        widget = forms.SplitDateTimeWidget(
            date_attrs={"type": "date"}, time_attrs={"type": "time"}, time_format="%H:%M"
        )
        errors = {
            "invalid_date": _("Give the day as well as the time."),
            "invalid_time": _("Give the time as well as the day."),
        }
        super().__init__(required=False, widget=widget, error_messages=errors, **kwargs)

    def compress(self, data_list) -> datetime | None:
        with timezone.override(UTC):  # no zone's gaps or repeats: the service reads them
            moment = super().compress(data_list)
        return moment.replace(tzinfo=None) if moment is not None else None


class ScheduleForm(TrailIdsForm):
    """Named as schedules.services names a schedule's fields: a one-off's `starts_at` and
    `ends_at` (a day and a time each), a daily one's `start_time`, `end_time`, `first_date`
    and `last_date`; a refusal lands on the field it names."""

    activity = forms.ChoiceField(
        label=_("Change"),
        choices=activity_choices,
        required=False,
        help_text=_("The trails' status, or one activity's status on each of them."),
    )
    repeat = forms.ChoiceField(
        label=_("Repeat"),
        choices=Repeat.choices,
        widget=forms.RadioSelect,
        help_text=_(
            "Once: give the day and time of the start, and of the end if there is one. "
            "Every day: give the times, and the first and last days if you want."
        ),
    )
    starts_at = LocalMomentField(label=_("Start"))
    ends_at = LocalMomentField(label=_("End"))
    end_status = forms.ChoiceField(
        label=_("Status at the end"),
        choices=[("", _("Back to what it was")), *TrailStatus.choices],
        required=False,
        help_text=_(
            "Back to what it was: each trail (or activity) gets the status it had before the "
            "start, unless someone changed it meanwhile."
        ),
    )

    class Meta:
        model = Schedule
        fields = [
            "trail_system",
            "activity",
            "status",
            "repeat",
            "start_time",
            "end_time",
            "first_date",
            "last_date",
            "end_status",
            "reason",
        ]
        widgets = {
            "start_time": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "end_time": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "first_date": forms.DateInput(attrs={"type": "date"}),
            "last_date": forms.DateInput(attrs={"type": "date"}),
            "reason": forms.TextInput(attrs={"size": 60}),
        }

    def __init__(self, *args, **kwargs):
        """A saved schedule's times in the fields of its kind: a one-off's day and time of
        start and end in `starts_at` and `ends_at`, a daily one's in its own."""
        super().__init__(*args, **kwargs)
        self.fields["start_time"].required = False  # a one-off starts at `starts_at`
        schedule = self.instance
        if schedule.pk is None or schedule.repeat != Repeat.ONCE:
            return
        self.initial |= {
            "starts_at": _combined(schedule.start_date, schedule.start_time),
            "ends_at": _combined(schedule.end_date, schedule.end_time),
            "start_time": None,
            "end_time": None,
        }

    def clean(self):
        cleaned = super().clean()
        system, trails = cleaned.get("trail_system"), cleaned.get("trail_ids")
        if system and trails and any(t.trail_system_id != system.pk for t in trails):
            self.add_error(
                "trail_ids", _("Every trail must belong to the schedule's trail system.")
            )
        return cleaned


def service_fields(cleaned: dict) -> dict:
    """The form's values as schedules.services takes them, under the same names: the fields
    of the schedule's kind, and those of the other kind that were filled in, for the service
    to refuse on their field."""
    fields = {
        "trail_ids": [trail.pk for trail in cleaned["trail_ids"]],
        "activity": cleaned.get("activity") or "",
        "status": cleaned["status"],
        "end_status": cleaned.get("end_status") or "",
        "repeat": cleaned["repeat"],
        "reason": cleaned.get("reason") or "",
    }
    once = cleaned["repeat"] == Repeat.ONCE
    for name in services.ONCE_FIELDS:
        if once or cleaned.get(name):
            fields[name] = cleaned.get(name)
    for name in services.DAILY_FIELDS:
        if not once or cleaned.get(name):
            fields[name] = cleaned.get(name)
    return fields


def _combined(day, at) -> datetime | None:
    return datetime.combine(day, at) if day is not None and at is not None else None


@admin.register(Schedule)
class ScheduleAdmin(ListedInSystemZone, TrailPickerMixin, DeleteThroughService, ServiceAdmin):
    row_name = "schedule"
    delete_function = staticmethod(services.delete_schedule)

    form = ScheduleForm
    list_display = ["__str__", "trail_system", "trail_names", "when", "reason", "in_effect"]
    list_filter = ["repeat", "status", "trail_system"]
    list_select_related = ["trail_system"]
    search_fields = ["reason", "id"]
    readonly_fields = ["times_in", "next_change", "recent_runs"]
    fieldsets = [
        (None, {"fields": ["trail_system", "trail_ids", "activity", "status", "reason"]}),
        (_("When"), {"fields": ["times_in", "repeat", "end_status"]}),
        (_("Once"), {"fields": ["starts_at", "ends_at"]}),
        (_("Every day"), {"fields": [("start_time", "end_time"), ("first_date", "last_date")]}),
        (_("What happened"), {"fields": ["next_change", "recent_runs"]}),
    ]

    def get_queryset(self, request):
        return selectors.with_last_applied(super().get_queryset(request)).prefetch_related("trails")

    def get_fieldsets(self, request, obj=None):
        if obj is None:  # nothing happened yet; the times' help says their zone
            (main, when, *kinds, _happened) = self.fieldsets
            fields = [name for name in when[1]["fields"] if name != "times_in"]
            return [main, (when[0], {"fields": fields}), *kinds]
        return self.fieldsets

    def get_form(self, request, obj=None, change=False, **kwargs):
        """The start's and end's times say their zone and the time there now: the schedule's
        system's, else those of the systems the person may choose."""
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None:
            systems = [obj.trail_system]
        else:
            choices = form.base_fields["trail_system"].queryset
            chosen = request.GET.get("trail_system") or request.POST.get("trail_system")
            systems = choices.filter(pk=chosen) if chosen else choices.none()
            systems = (systems or choices).order_by("name")[: ZONES_LISTED * 5]
        said = _("Times are in %(zones)s.") % {"zones": zones_now(systems)}
        for name in ("starts_at", "start_time"):
            # A copy: the declared `starts_at` is the form class's, shared by every page.
            form.base_fields[name] = copy(form.base_fields[name])
            form.base_fields[name].help_text = said
        return form

    @admin.display(description=_("trails"))
    def trail_names(self, schedule) -> str:
        return ", ".join(trail.name for trail in schedule.trails.all())

    def zone_said(self, system: TrailSystem | None) -> str:
        """A schedule's times are its system's wall clock, never UTC: with systems in several
        zones, each row names its own."""
        if system is None:
            return _("Times are in each trail system's zone, named on its row.")
        return super().zone_said(system)

    def get_list_display(self, request):
        shown = super().get_list_display(request)
        if self.listed_zone(request) is not None:
            return shown
        return ["when_in_zone" if name == "when" else name for name in shown]

    def get_changelist_instance(self, request):
        """Each row knows its system's zone, read for the page's systems at once."""
        changelist = super().get_changelist_instance(request)
        rows = changelist.result_list
        zones = zone_names({row.trail_system_id: row.trail_system for row in rows}.values())
        for row in rows:
            row.zone_name = zones[row.trail_system_id]
        return changelist

    @admin.display(description=_("when"))
    def when(self, schedule) -> str:
        def hour(at):
            return at.strftime("%H:%M") if at else ""

        if schedule.repeat == Repeat.ONCE:
            start = f"{schedule.start_date} {hour(schedule.start_time)}"
            end = f"{schedule.end_date} {hour(schedule.end_time)}" if schedule.has_end else ""
        else:
            start, end = hour(schedule.start_time), hour(schedule.end_time)
        return f"{start} \u2192 {end}" if end else start

    @admin.display(description=_("when"))
    def when_in_zone(self, schedule) -> str:
        return f"{self.when(schedule)} ({schedule.zone_name})"

    @admin.display(description=_("in effect"), boolean=True)
    def in_effect(self, schedule) -> bool:
        return schedule.last_action == Action.START

    @admin.display(description=_("times are in"))
    def times_in(self, schedule) -> str:
        if schedule is None or schedule.trail_system_id is None:
            return _("the trail system's time zone (its Display settings)")
        return zone_now(zone_of(schedule.trail_system))

    @admin.display(description=_("next change"))
    def next_change(self, schedule) -> str:
        state = selectors.with_states([schedule], timezone.now())[0].state
        if state.next is None:
            return _("None: this schedule is over.")
        moment = state.next.due_at.astimezone(state.zone)
        return f"{moment:%Y-%m-%d %H:%M} {state.zone.key}"

    @admin.display(description=_("latest runs"))
    def recent_runs(self, schedule) -> str:
        runs = schedule.runs.order_by("-due_at", "-id")[:10]
        zone = selectors.with_states([schedule], timezone.now())[0].state.zone
        rows = [
            (
                f"{run.due_at.astimezone(zone):%Y-%m-%d %H:%M}",
                run.get_action_display(),
                run.get_outcome_display(),
                date_format(timezone.localtime(run.recorded_on), "DATETIME_FORMAT"),
            )
            for run in runs
        ]
        if not rows:
            return _("Nothing has fallen due yet.")
        return format_html_join("", "<div>{}: {} \u2014 {} ({})</div>", rows)

    def save_model(self, request, obj, form, change):
        """An untouched form saves nothing."""
        if change and not form.has_changed():
            return
        fields = service_fields(form.cleaned_data)
        if change:
            services.change_schedule(schedule=obj, **fields, actor=web_actor(request))
            return
        schedule = services.create_schedule(
            system=form.cleaned_data["trail_system"], **fields, actor=web_actor(request)
        )
        self.stand_for(obj, schedule)

    def save_related(self, request, form, formsets, change):
        """The service has set the schedule's trails."""
