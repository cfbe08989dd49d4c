"""Issue the CAP messages time alone brings (a notice's expiry, a closure's end) and those a
failed issue left: what beat does, for a machine without beat (the embedded default) or from
cron."""

from cap.services import issue_due_messages
from core.repeating import RepeatingCommand


class Command(RepeatingCommand):
    help = (
        "Issue the CAP messages due on every system with warnings (an Alert, Update or Cancel "
        "that a notice's expiry, a closure's start or end, or a failed issue left), once. With "
        "--every SECONDS, keep doing so until stopped (make run does this when there is no "
        "Celery beat)."
    )
    done_label = "CAP messages issued"

    def run_pass(self) -> int:
        return issue_due_messages()
