"""Apply the scheduled changes that have fallen due: what beat does, for a machine without
beat (the embedded default) or from cron."""

import time

from django.core.management.base import BaseCommand

from schedules.services import apply_due_schedules


class Command(BaseCommand):
    help = (
        "Apply every scheduled status change that has fallen due, once. With --every SECONDS, "
        "keep doing so until stopped (make run does this when there is no Celery beat)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            metavar="SECONDS",
            help="Run again every SECONDS until interrupted.",
        )

    def handle(self, *args, every: float | None = None, **options):
        while True:
            recorded = apply_due_schedules()
            if recorded or every is None:
                self.stdout.write(f"Scheduled changes recorded: {recorded}")
            if every is None:
                return
            time.sleep(max(every, 1.0))
