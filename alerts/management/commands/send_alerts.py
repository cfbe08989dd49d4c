"""Fan out and send riders' alerts that are due: what the alerts worker does, for a machine
without a broker (the embedded default), where nothing is sent inside a request."""

from alerts.tasks import run_all_due
from core.repeating import RepeatingCommand


class Command(RepeatingCommand):
    help = (
        "Fan out recorded changes to the riders who follow them and send every alert that is "
        "due, once. With --every SECONDS, keep doing so until stopped (make run does this "
        "when there is no Celery worker)."
    )
    done_label = "Alert attempts made"

    def run_pass(self) -> int:
        return run_all_due()
