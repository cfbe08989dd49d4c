"""Scheduled status changes: a change of some trails (or of one activity on them) at a time in
the system's zone, once or every day, optionally undone at an end time; and the record of
every occurrence that fell due, written in the transaction that made its change."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import Audited, IdField
from trails.enums import TrailStatus
from trails.models import Trail, TrailSystem


class Repeat(models.TextChoices):
    ONCE = "once", _("Once")
    DAILY = "daily", _("Every day")


class Schedule(Audited):
    """Times are wall-clock times in the system's zone (trails.timezones), kept as dates and
    times so that a change of the zone moves them with it. `once` uses start_date/start_time
    and the optional end_date/end_time; `daily` uses start_time, the optional end_time and the
    optional first_date/last_date. An empty end_status undoes the start at the end: each value
    goes back to what it was, unless someone changed it meanwhile."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="schedules",
        verbose_name=_("trail system"),
    )
    trails = models.ManyToManyField(Trail, related_name="schedules", verbose_name=_("trails"))
    activity = models.CharField(
        max_length=40,
        blank=True,
        default="",
        help_text=_("Change this activity on the trails instead of the trails themselves."),
        verbose_name=_("activity"),
    )
    status = models.CharField(
        max_length=10, choices=TrailStatus.choices, verbose_name=_("status at the start")
    )
    end_status = models.CharField(
        max_length=10,
        choices=TrailStatus.choices,
        blank=True,
        default="",
        help_text=_("Empty: back to what it was before the start."),
        verbose_name=_("status at the end"),
    )
    repeat = models.CharField(max_length=10, choices=Repeat.choices, verbose_name=_("repeat"))
    start_date = models.DateField(null=True, blank=True, verbose_name=_("start date"))
    start_time = models.TimeField(verbose_name=_("start time"))
    end_date = models.DateField(null=True, blank=True, verbose_name=_("end date"))
    end_time = models.TimeField(null=True, blank=True, verbose_name=_("end time"))
    first_date = models.DateField(null=True, blank=True, verbose_name=_("first day"))
    last_date = models.DateField(null=True, blank=True, verbose_name=_("last day"))
    reason = models.CharField(
        max_length=500,
        blank=True,
        default="",
        help_text=_("Shown on the public map and in the calendar feed."),
        verbose_name=_("reason"),
    )
    # Occurrences due at or before this instant are never applied: it is set when the schedule
    # is created or changed, after what was already due has been applied.
    armed_on = models.DateTimeField(default=timezone.now, verbose_name=_("armed on"))
    # Set once no occurrence is left to apply.
    finished_on = models.DateTimeField(null=True, blank=True, verbose_name=_("finished on"))

    class Meta:
        verbose_name = _("scheduled change")
        verbose_name_plural = _("scheduled changes")
        ordering = ["-created_on"]
        indexes = [models.Index(fields=["trail_system", "-created_on"])]

    def __str__(self) -> str:
        """Lists that show schedules read their systems with them."""
        return _("%(status)s on %(system)s (%(repeat)s)") % {
            "status": self.get_status_display(),
            "system": self.trail_system.name,
            "repeat": self.get_repeat_display().lower(),
        }

    @property
    def has_end(self) -> bool:
        return self.end_time is not None


class Action(models.TextChoices):
    START = "start", _("Start")
    END = "end", _("End")


class Outcome(models.TextChoices):
    APPLIED = "applied", _("Applied")
    # Due while nothing ran (beat or every worker down) and followed by a later occurrence
    # of the same schedule before anything ran again: only the latest is applied.
    SUPERSEDED = "superseded", _("Superseded by a later occurrence")


class ScheduleRun(models.Model):
    """One occurrence of a schedule that fell due: recorded in the transaction of its change,
    so an occurrence is applied once (the unique constraint) or, when that transaction fails,
    not at all and again at the next pass."""

    schedule = models.ForeignKey(
        Schedule, on_delete=models.CASCADE, related_name="runs", verbose_name=_("schedule")
    )
    action = models.CharField(max_length=10, choices=Action.choices, verbose_name=_("action"))
    due_at = models.DateTimeField(verbose_name=_("due at"))
    outcome = models.CharField(max_length=12, choices=Outcome.choices, verbose_name=_("outcome"))
    recorded_on = models.DateTimeField(default=timezone.now, verbose_name=_("recorded on"))
    # trail id -> {"status": [from, to], "activities": {value: [from, to]}}: what this run
    # changed; a start's is what its end puts back.
    changes = models.JSONField(default=dict, blank=True, verbose_name=_("changes"))

    class Meta:
        verbose_name = _("scheduled change run")
        verbose_name_plural = _("scheduled change runs")
        ordering = ["-due_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "action", "due_at"], name="one_run_per_occurrence"
            )
        ]
        indexes = [models.Index(fields=["schedule", "-due_at"])]

    def __str__(self) -> str:
        return f"{self.schedule_id} {self.action} {self.due_at:%Y-%m-%d %H:%M} {self.outcome}"
