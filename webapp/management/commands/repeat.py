"""Several repeating commands in one process: the embedded default's background work (`make
run`) without a Python process, and its memory, per command. Without arguments it runs every
pass the embedded default needs (EMBEDDED_DEFAULT_PASSES). `make run` passes its script's
pid (`--parent`): the loop ends with the script however the script ends, even killed outright
(no trap of its own then runs), instead of running on as an orphan."""

import math

from django.core.management.base import BaseCommand, CommandError

from core.repeating import (
    repeating_command,
    run_together,
    stop_on_signals,
    stop_when_parent_ends,
)

# What beat would run on a deployment with a broker, for the embedded default, which has none:
# each command with its period in seconds. A new background pass is one line here.
EMBEDDED_DEFAULT_PASSES: list[tuple[str, float]] = [
    ("apply_schedules", 15),
    ("send_webhooks", 1),
    ("send_alerts", 1),
    ("sweep_grooming_sessions", 15),
    ("issue_cap_messages", 15),
    ("purge_reports", 3600),
    ("prune_trail_change_log", 3600),
]


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
        "apply_schedules=15`; with no COMMAND, every pass the embedded default needs ("
        + ", ".join(f"{name}={every:g}" for name, every in EMBEDDED_DEFAULT_PASSES)
        + "). Each command runs in a thread of its own, so a slow pass delays "
        "only its own command, and a failing pass is logged without stopping any of them."
    )

    def add_arguments(self, parser):
        parser.add_argument("loops", nargs="*", metavar="COMMAND=SECONDS")
        parser.add_argument(
            "--parent",
            type=int,
            metavar="PID",
            help="Stop too once process PID (the one that started this) is no longer its "
            "parent: it has ended, even killed with SIGKILL.",
        )

    def handle(self, *args, loops: list[str], parent: int | None = None, **options):
        commands = []
        for name, every in map(_loop, loops) if loops else EMBEDDED_DEFAULT_PASSES:
            command = repeating_command(name)
            command.stdout, command.stderr = self.stdout, self.stderr
            commands.append((command, every))
        stop = stop_on_signals()
        if parent is not None:
            stop_when_parent_ends(parent, stop)
        run_together(commands, stop)
