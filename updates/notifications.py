"""Subscriber notification entry point, called after the commit that creates an update."""

from django.db import transaction


def notify_subscribers_on_commit(update_id: str) -> None:
    transaction.on_commit(lambda: send_update_notifications(update_id))


def send_update_notifications(update_id: str) -> None:
    """Fan-out to email and SMS arrives with the notifications issue."""
