"""Send the webhook deliveries that are due: what the webhook worker does, for a machine
without a broker (the embedded default), where nothing is sent inside a request."""

from core.repeating import RepeatingCommand
from webhooks.delivery import send_all_due


class Command(RepeatingCommand):
    help = (
        "Send every webhook delivery that is due (new events and retries whose time came), "
        "once. With --every SECONDS, keep doing so until stopped (make run does this when "
        "there is no Celery worker)."
    )
    done_label = "Webhook attempts made"

    def run_pass(self) -> int:
        return send_all_due()
