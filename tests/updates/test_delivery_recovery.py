"""Deliveries a dead worker left claimed (`sending`) are recovered after their lease,
never sending any message twice."""

from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tests.factories import SubscriberFactory, TrailSystemFactory, UpdateFactory
from updates.models import Delivery
from updates.notifications import recipients
from updates.tasks import sweep_notifications

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]


@pytest.fixture(autouse=True)
def one_outcome_at_a_time_and_a_short_lease(settings):
    """Each outcome recorded before the next send; claims a few seconds old, so they are
    later than PostgreSQL's start."""
    settings.NOTIFICATION_RECORD_EVERY = 1
    settings.DELIVERY_LEASE = timedelta(seconds=1)


@pytest.fixture
def update():
    system = TrailSystemFactory()
    for n in range(4):
        SubscriberFactory(trail_system=system, email=f"s{n}@example.test", phone="")
    update = UpdateFactory(trail_system=system, notify=True)
    recipients.record_deliveries(update)
    return update


def die_after_sending(update, sent: int, claimed_on: datetime) -> list[Delivery]:
    """What a worker killed mid-chunk leaves: its claim, `sent` rows recorded as sent, the
    next one in flight (its message may be out), the rest never handed to the provider."""
    rows = recipients.claim(update.deliveries.values_list("pk", flat=True), "email")
    Delivery.objects.filter(pk__in=[d.pk for d in rows[:sent]]).update(
        state=Delivery.State.SENT, sent_on=timezone.now()
    )
    update.deliveries.update(claimed_on=claimed_on)
    return rows


def test_after_the_lease_the_in_flight_row_fails_and_the_untouched_rows_are_sent(update, settings):
    rows = die_after_sending(
        update, sent=1, claimed_on=timezone.now() - settings.DELIVERY_LEASE * 2
    )

    sweep_notifications()

    states = dict(update.deliveries.values_list("pk", "state"))
    assert [states[d.pk] for d in rows] == ["sent", "failed", "sent", "sent"]
    in_flight = Delivery.objects.get(pk=rows[1].pk)
    assert in_flight.error.startswith("interrupted")
    assert sorted(m.to[0] for m in mail.outbox) == sorted(d.subscriber.email for d in rows[2:])
    assert all(d.attempts == 1 for d in update.deliveries.all())


def test_outcomes_recorded_in_groups_leave_the_group_in_flight_in_doubt(update, settings):
    settings.NOTIFICATION_RECORD_EVERY = 2
    rows = die_after_sending(
        update, sent=1, claimed_on=timezone.now() - settings.DELIVERY_LEASE * 2
    )

    sweep_notifications()

    states = dict(update.deliveries.values_list("pk", "state"))
    assert [states[d.pk] for d in rows] == ["sent", "failed", "failed", "sent"]
    assert [m.to[0] for m in mail.outbox] == [rows[3].subscriber.email]


def test_a_claim_within_its_lease_is_left_to_its_worker(update, settings):
    die_after_sending(update, sent=1, claimed_on=timezone.now() - settings.DELIVERY_LEASE / 2)

    sweep_notifications()

    assert sorted(update.deliveries.values_list("state", flat=True)) == [
        "sending",
        "sending",
        "sending",
        "sent",
    ]
    assert mail.outbox == []


def test_a_second_sweep_sends_nothing_more(update, settings):
    die_after_sending(update, sent=0, claimed_on=timezone.now() - settings.DELIVERY_LEASE * 2)
    sweep_notifications()
    sent = len(mail.outbox)

    sweep_notifications()

    assert sent == 3
    assert len(mail.outbox) == sent


def test_a_claim_from_before_postgresql_restarted_sends_none_of_its_unrecorded_rows(update):
    """Outcome records not yet flushed when PostgreSQL crashed are lost: any of the first
    unrecorded rows of the claim, up to the groups since the last flush, may have gone out,
    so none is sent again."""
    before_start = recipients.database_started() - timedelta(seconds=1)
    rows = die_after_sending(update, sent=1, claimed_on=before_start)

    sweep_notifications()

    states = dict(update.deliveries.values_list("pk", "state"))
    assert recipients.in_doubt(restarted=True) >= 3
    assert [states[d.pk] for d in rows] == ["sent", "failed", "failed", "failed"]
    assert mail.outbox == []
