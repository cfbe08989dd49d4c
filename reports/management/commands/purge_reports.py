"""Delete rider reports past REPORT_RETENTION_DAYS, with their photos and addresses: what
beat does daily, for a machine without beat (the embedded default) or from cron."""

import time

from django.core.management.base import BaseCommand

from reports.retention import delete_old_reports


class Command(BaseCommand):
    help = (
        "Delete rider reports older than REPORT_RETENTION_DAYS (90), with their photos and "
        "the reporters' addresses, once. With --every SECONDS, keep doing so until stopped "
        "(make run does this when there is no Celery beat)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every", type=float, metavar="SECONDS", help="Run again every SECONDS."
        )

    def handle(self, *args, every: float | None = None, **options):
        while True:
            deleted = delete_old_reports()
            if deleted or every is None:
                self.stdout.write(f"Rider reports deleted: {deleted}")
            if every is None:
                return
            time.sleep(max(every, 60.0))
