"""End grooming sessions 15 minutes without a position: what beat does, for a machine without
beat (the embedded default) or from cron."""

import time

from django.core.management.base import BaseCommand

from grooming.sessions import sweep_sessions


class Command(BaseCommand):
    help = (
        "End every grooming session 15 minutes without a position, and mark what positions "
        "not yet measured groomed, once. With --every SECONDS, keep doing so until stopped "
        "(make run does this when there is no Celery beat)."
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
            ended = sweep_sessions()
            if ended or every is None:
                self.stdout.write(f"Grooming sessions ended: {ended}")
            if every is None:
                return
            time.sleep(max(every, 1.0))
