"""Apply the scheduled changes that have fallen due: what beat does, for a machine without
beat (the embedded default) or from cron."""

from core.repeating import RepeatingCommand
from schedules.services import apply_due_schedules


class Command(RepeatingCommand):
    help = (
        "Apply every scheduled status change that has fallen due, once. With --every SECONDS, "
        "keep doing so until stopped (make run does this when there is no Celery beat)."
    )
    done_label = "Scheduled changes and closures applied"

    def run_pass(self) -> int:
        return apply_due_schedules()
