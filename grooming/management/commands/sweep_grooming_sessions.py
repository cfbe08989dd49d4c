"""End grooming sessions 15 minutes without a position: what beat does, for a machine without
beat (the embedded default) or from cron."""

from core.repeating import RepeatingCommand
from grooming.sessions import sweep_sessions


class Command(RepeatingCommand):
    help = (
        "End every grooming session 15 minutes without a position, and mark what positions "
        "not yet measured groomed, once. With --every SECONDS, keep doing so until stopped "
        "(make run does this when there is no Celery beat)."
    )
    done_label = "Grooming sessions ended"

    def run_pass(self) -> int:
        return sweep_sessions()
