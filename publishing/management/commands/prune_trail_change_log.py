"""Delete the trails change log's rows older than a day: what beat does hourly, for a machine
without beat (the embedded default on PostgreSQL) or from cron."""

from django.utils import timezone

from core.repeating import RepeatingCommand
from publishing.publisher import delete_old_trail_changes


class Command(RepeatingCommand):
    help = (
        "Delete the trails change log's rows older than a day (a compile reads only the trails "
        "the log names), once. With --every SECONDS, keep doing so until stopped (make run "
        "does this when there is no Celery beat)."
    )
    done_label = "Change log rows deleted"

    def run_pass(self) -> int:
        return delete_old_trail_changes(now=timezone.now())
