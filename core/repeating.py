"""Commands that make one of beat's passes, for a machine without beat (the embedded default,
where `make run` repeats them all in one process with `manage.py repeat`, or cron): once, or
again every SECONDS with --every."""

import logging
import os
import signal
import threading
from collections.abc import Sequence

from django.core.management import get_commands, load_command_class
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

logger = logging.getLogger(__name__)

MIN_SECONDS = 1.0  # between two passes of one command, whatever --every says


class RepeatingCommand(BaseCommand):
    """Subclasses say what one pass does (`run_pass`, returning how many things it did) and
    how to report it (`done_label`); a repeating run prints only the passes that did something,
    and outlives a failed pass (a locked SQLite file, a restarting database, a bug in one
    pass): the failure is logged and the next pass does its work."""

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
        if every is None:
            self.stdout.write(f"{self.done_label}: {self.run_pass()}")
            return
        run_together([(self, every)], stop_on_signals())

    def repeat(self, every: float, stop: threading.Event) -> None:
        """Pass after pass, `every` seconds apart, until `stop` is set."""
        while not stop.is_set():
            try:
                done = self.run_pass()
            except Exception:
                logger.exception("%s: a pass failed; trying again in %s s", self.done_label, every)
                connection.close()  # a broken connection is opened again by the next pass
                done = 0
            if done:
                self.stdout.write(f"{self.done_label}: {done}")
            stop.wait(max(every, MIN_SECONDS))
        connection.close()


def stop_on_signals() -> threading.Event:
    """An event that SIGTERM and SIGINT set: the passes under way end, no new one starts."""
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    return stop


def stop_when_parent_ends(parent: int, stop: threading.Event) -> None:
    """Set `stop` once process `parent` is no longer this one's parent, looking every second
    (in a thread of its own): it has ended, however (killed with SIGKILL, it ran no clean-up of
    its own), and the work this process did beside it must not go on alone. Already set when
    `parent` ended before this process got here."""

    def watch() -> None:
        while os.getppid() == parent:
            if stop.wait(1):
                return
        stop.set()

    threading.Thread(target=watch, name="parent", daemon=True).start()


def run_together(loops: Sequence[tuple[RepeatingCommand, float]], stop: threading.Event) -> None:
    """Each command's passes on its own period, in a thread of its own (with its own database
    connection), until `stop` is set: a slow pass delays only its own command's next pass, a
    failing one stops none of them."""
    threads = [
        threading.Thread(target=command.repeat, args=(every, stop), name=command.done_label)
        for command, every in loops
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def repeating_command(name: str) -> RepeatingCommand:
    """The installed command `name`, which must be a repeating one."""
    app = get_commands().get(name)
    command = load_command_class(app, name) if app else None
    if not isinstance(command, RepeatingCommand):
        raise CommandError(f"{name!r} is not a command with --every.")
    return command
