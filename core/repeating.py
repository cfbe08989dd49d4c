"""Commands that make one of beat's passes, for a machine without beat (the embedded default,
where `make run` loops them, or cron): once, or again every SECONDS with --every."""

import logging
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)


class RepeatingCommand(BaseCommand):
    """Subclasses say what one pass does (`run_pass`, returning how many things it did) and
    how to report it (`done_label`); a looping run prints only the passes that did something,
    and outlives a failed pass (a locked SQLite file, a restarting database): the next one
    does its work."""

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
            if every is None:
                done = self.run_pass()
            else:
                try:
                    done = self.run_pass()
                except DatabaseError:
                    logger.exception(
                        "%s: a pass failed; trying again in %s s", self.done_label, every
                    )
                    connection.close()
                    done = 0
            if done or every is None:
                self.stdout.write(f"{self.done_label}: {done}")
            if every is None:
                return
            time.sleep(max(every, 1.0))
