"""Commands that make one of beat's passes, for a machine without beat (the embedded default,
where `make run` loops them, or cron): once, or again every SECONDS with --every."""

import time

from django.core.management.base import BaseCommand


class RepeatingCommand(BaseCommand):
    """Subclasses say what one pass does (`run_pass`, returning how many things it did) and
    how to report it (`done_label`); a looping run prints only the passes that did something."""

    done_label: str

    def run_pass(self) -> int:
        raise NotImplementedError

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            metavar="SECONDS",
            help="Run again every SECONDS until interrupted.",
        )

    def handle(self, *args, every: float | None = None, **options):
        while True:
            done = self.run_pass()
            if done or every is None:
                self.stdout.write(f"{self.done_label}: {done}")
            if every is None:
                return
            time.sleep(max(every, 1.0))
