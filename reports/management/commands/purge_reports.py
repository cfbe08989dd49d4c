"""Delete rider reports past REPORT_RETENTION_DAYS, with their photos and addresses: what
beat does daily, for a machine without beat (the embedded default) or from cron."""

from core.repeating import RepeatingCommand
from reports.retention import delete_old_reports


class Command(RepeatingCommand):
    help = (
        "Delete rider reports older than REPORT_RETENTION_DAYS (90), with their photos and "
        "the reporters' addresses, once. With --every SECONDS, keep doing so until stopped "
        "(make run does this when there is no Celery beat)."
    )
    done_label = "Rider reports deleted"

    def run_pass(self) -> int:
        return delete_old_reports()
