"""Send the webhook deliveries that are due: what the webhook worker does, for a machine
without a broker (the embedded default), where nothing is sent inside a request."""

import logging
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, connection

from webhooks.delivery import send_all_due

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Send every webhook delivery that is due (new events and retries whose time came), "
        "once. With --every SECONDS, keep doing so until stopped (make run does this when "
        "there is no Celery worker)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            metavar="SECONDS",
            help="Look again every SECONDS until interrupted.",
        )

    def handle(self, *args, every: float | None = None, **options):
        if every is None:
            self.stdout.write(f"Webhook attempts made: {send_all_due()}")
            return
        while True:
            try:
                send_all_due()
            except DatabaseError:
                # A locked SQLite file, a restarting database: the next pass sends it.
                logger.exception("webhook pass failed; trying again in %s s", every)
                connection.close()
            time.sleep(max(every, 0.2))
