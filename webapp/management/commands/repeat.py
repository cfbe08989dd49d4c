"""Several repeating commands in one process: the embedded default's background work (`make
run`) without a Python process, and its memory, per command."""

import math

from django.core.management.base import BaseCommand, CommandError

from core.repeating import repeating_command, run_together, stop_on_signals


def _loop(argument: str) -> tuple[str, float]:
    name, _, seconds = argument.partition("=")
    try:
        every = float(seconds)
    except ValueError:
        every = math.nan
    if not 0 < every < math.inf:
        raise CommandError(f"{argument!r}: write COMMAND=SECONDS, e.g. send_webhooks=1.")
    return name, every


class Command(BaseCommand):
    help = (
        "Run the passes of several repeating commands (those with --every) in this one "
        "process, each every its own SECONDS, until stopped: e.g. `repeat send_webhooks=1 "
        "apply_schedules=15`. Each command runs in a thread of its own, so a slow pass delays "
        "only its own command, and a failing pass is logged without stopping any of them."
    )

    def add_arguments(self, parser):
        parser.add_argument("loops", nargs="+", metavar="COMMAND=SECONDS")

    def handle(self, *args, loops: list[str], **options):
        commands = []
        for name, every in map(_loop, loops):
            command = repeating_command(name)
            command.stdout, command.stderr = self.stdout, self.stderr
            commands.append((command, every))
        run_together(commands, stop_on_signals())
