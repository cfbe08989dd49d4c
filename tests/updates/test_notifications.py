from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tests.factories import SubscriberFactory, TrailFactory, TrailSystemFactory, UpdateFactory
from tests.updates.notify_support import twilio_created, twilio_error
from updates import tasks
from updates.models import Delivery, Subscriber
from updates.notifications import delivery as sending
from updates.notifications import recipients
from updates.subscribers import unsubscribe
from updates.tasks import fan_out_update, sweep_notifications

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]


@pytest.fixture
def system():
    return TrailSystemFactory(name="Mont Vert", language="en", depth_measurement="inches")


def subscribe(system, *, email="", phone="") -> Subscriber:
    return SubscriberFactory(trail_system=system, email=email, phone=phone)


def post_update(django_capture_on_commit_callbacks, system, **fields):
    """Create an update as the update service does: notify after the commit."""
    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(trail_system=system, notify=fields.pop("notify", True), **fields)
        if update.notify:
            tasks.notify_subscribers_on_commit(update.pk)
    return update


def test_notify_sends_one_email_and_one_sms_per_subscriber(
    system, sms_outbox, django_capture_on_commit_callbacks
):
    subscribe(system, email="both@example.test", phone="+15145550101")
    subscribe(system, email="mail-only@example.test")
    subscribe(system, phone="+15145550102")
    subscribe(TrailSystemFactory(), email="elsewhere@example.test", phone="+15145550199")

    update = post_update(django_capture_on_commit_callbacks, system, description="Lift 2 opens.")

    assert sorted(m.to[0] for m in mail.outbox) == ["both@example.test", "mail-only@example.test"]
    assert sorted(m.to for m in sms_outbox) == ["+15145550101", "+15145550102"]
    assert set(update.deliveries.values_list("state", flat=True)) == {"sent"}
    assert update.deliveries.count() == 4


def test_english_notice_names_the_system_severity_and_text_and_links_map_and_unsubscribe(
    system, sms_outbox, django_capture_on_commit_callbacks, settings
):
    settings.PUBLIC_BASE_URL = "https://trails.example.test"
    subscriber = subscribe(system, email="a@example.test", phone="+15145550101")

    post_update(
        django_capture_on_commit_callbacks,
        system,
        description="Bridge on Ridge Loop is out.",
        severity="danger",
        link_url="https://example.test/bridge",
    )

    email = mail.outbox[0]
    link = f"https://trails.example.test/unsubscribe/{subscriber.unsubscribe_token}"
    assert email.subject == "Mont Vert: Notice (Danger)"
    assert "Danger: Bridge on Ridge Loop is out." in email.body
    assert "https://example.test/bridge" in email.body
    assert f"https://trails.example.test/map/{system.pk}" in email.body
    assert link in email.body
    assert email.extra_headers["List-Unsubscribe"] == f"<{link}>"
    html, mimetype = email.alternatives[0]
    assert mimetype == "text/html" and link in html and "Bridge on Ridge Loop" in html
    text = sms_outbox[0].body
    assert "Bridge on Ridge Loop is out." in text
    assert link in text and "reply STOP" in text


def test_french_system_gets_french_messages_with_condition_labels(
    sms_outbox, django_capture_on_commit_callbacks
):
    system = TrailSystemFactory(name="Sentiers du Lac", language="fr")
    subscribe(system, email="b@example.test", phone="+15145550103")
    trail = TrailFactory(trail_system=system, name="La Boucle")
    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(
            trail_system=system,
            type="surfaceConditions",
            conditions=["groomed", "icy"],
            description="",
            notify=True,
        )
        update.trails.set([trail])
        tasks.notify_subscribers_on_commit(update.pk)

    email = mail.outbox[0]
    assert email.subject == "Sentiers du Lac : Conditions de surface"
    assert "Conditions : Damé, Glacé" in email.body
    assert "Sentier : La Boucle" in email.body
    assert "Se désabonner" in email.body
    assert "Damé, Glacé" in sms_outbox[0].body
    assert "répondez ARRET" in sms_outbox[0].body


def test_snow_report_shows_figures_in_the_systems_depth_unit(
    sms_outbox, django_capture_on_commit_callbacks
):
    system = TrailSystemFactory(name="Nordic", language="en", depth_measurement="centimeters")
    subscribe(system, email="c@example.test")

    post_update(
        django_capture_on_commit_callbacks,
        system,
        type="snowReport",
        description="",
        base_depth=85,
        twenty_four_hours=12.5,
        last_snow_date=datetime(2026, 1, 14, 6, tzinfo=UTC),
        last_snow_time="05:30",
    )

    body = mail.outbox[0].body
    assert "Base depth: 85 cm" in body
    assert "Last 24 hours: 12.5 cm" in body
    assert "Last snowfall date: 2026-01-14 05:30" in body
    assert "Season total" not in body


def test_notify_false_sends_nothing(system, sms_outbox, django_capture_on_commit_callbacks):
    subscribe(system, email="a@example.test", phone="+15145550101")

    update = post_update(django_capture_on_commit_callbacks, system, notify=False)
    fan_out_update(update.pk)

    assert mail.outbox == [] and sms_outbox == []
    assert not Delivery.objects.exists()


def test_running_the_fan_out_again_sends_nothing_more(
    system, sms_outbox, django_capture_on_commit_callbacks
):
    subscribe(system, email="a@example.test", phone="+15145550101")
    update = post_update(django_capture_on_commit_callbacks, system)

    fan_out_update(update.pk)
    tasks.fan_out_update.delay(update.pk)

    assert len(mail.outbox) == 1 and len(sms_outbox) == 1
    assert update.deliveries.count() == 2


def test_a_duplicated_chunk_sends_nothing_twice(system, sms_outbox):
    subscribe(system, email="a@example.test")
    subscribe(system, email="b@example.test")
    update = UpdateFactory(trail_system=system, notify=True)
    recipients.record_deliveries(update)
    [(channel, ids)] = recipients.pending_chunks(update.pk)

    sending.send_chunk(update.pk, channel, ids)
    sending.send_chunk(update.pk, channel, ids)

    assert len(mail.outbox) == 2


def test_large_lists_are_split_into_chunks_per_channel(system):
    for n in range(5):
        subscribe(system, email=f"s{n}@example.test", phone=f"+1514555010{n}")
    update = UpdateFactory(trail_system=system, notify=True)
    recipients.record_deliveries(update)

    chunks = recipients.pending_chunks(update.pk, size=2)

    assert [(channel, len(ids)) for channel, ids in chunks] == [
        ("email", 2),
        ("email", 2),
        ("email", 1),
        ("sms", 2),
        ("sms", 2),
        ("sms", 1),
    ]


def test_unsubscribed_subscribers_get_nothing(
    system, sms_outbox, django_capture_on_commit_callbacks
):
    leaving = subscribe(system, email="leaving@example.test", phone="+15145550101")
    subscribe(system, email="staying@example.test")
    post_update(django_capture_on_commit_callbacks, system)
    mail.outbox.clear()
    sms_outbox.clear()

    unsubscribe(token=leaving.unsubscribe_token)
    post_update(django_capture_on_commit_callbacks, system)

    assert [m.to for m in mail.outbox] == [["staying@example.test"]]
    assert sms_outbox == []


def test_one_refused_number_does_not_stop_the_others_and_is_skipped_next_time(
    system, fake_twilio, django_capture_on_commit_callbacks
):
    bad = "+15005550001"

    def responder(request):
        if request.form["To"] == [bad]:
            return twilio_error(21211, f"The 'To' number {bad} is not a valid phone number.")
        return twilio_created(request)

    server = fake_twilio(responder)
    subscriber = subscribe(system, email="bad@example.test", phone=bad)
    subscribe(system, phone="+15145550101")
    subscribe(system, phone="+15145550102")

    first = post_update(django_capture_on_commit_callbacks, system)

    sent_to = [r.form["To"][0] for r in server.requests]
    assert sorted(sent_to) == sorted([bad, "+15145550101", "+15145550102"])
    failed = first.deliveries.get(subscriber=subscriber, channel="sms")
    assert failed.state == "failed" and "21211" in failed.error
    assert first.deliveries.filter(channel="sms", state="sent").count() == 2
    subscriber.refresh_from_db()
    assert subscriber.phone_failed_on is not None

    server.requests.clear()
    mail.outbox.clear()
    post_update(django_capture_on_commit_callbacks, system)

    assert bad not in [r.form["To"][0] for r in server.requests]
    assert len(server.requests) == 2
    assert [m.to for m in mail.outbox] == [["bad@example.test"]]


def test_a_transient_provider_error_is_retried_until_sent(
    system, fake_twilio, django_capture_on_commit_callbacks
):
    calls = []

    def responder(request):
        calls.append(request)
        if len(calls) == 1:
            return twilio_error(20500, "Internal Server Error", status=500)
        return twilio_created(request)

    fake_twilio(responder)
    subscriber = subscribe(system, phone="+15145550101")

    update = post_update(django_capture_on_commit_callbacks, system)

    delivery = update.deliveries.get(subscriber=subscriber)
    assert (delivery.state, delivery.attempts, delivery.error) == ("sent", 2, "")
    assert len(calls) == 2


def test_a_provider_that_keeps_failing_is_given_up_after_the_last_attempt(
    system, fake_twilio, django_capture_on_commit_callbacks
):
    server = fake_twilio(lambda request: twilio_error(20429, "Too Many Requests", status=429))
    subscriber = subscribe(system, phone="+15145550101")

    update = post_update(django_capture_on_commit_callbacks, system)

    delivery = update.deliveries.get(subscriber=subscriber)
    assert delivery.state == "failed" and delivery.attempts == sending.MAX_ATTEMPTS
    assert "429" in delivery.error
    assert len(server.requests) == sending.MAX_ATTEMPTS
    subscriber.refresh_from_db()
    assert subscriber.phone_failed_on is None


def test_email_reuses_one_smtp_connection_and_a_refused_address_is_marked(
    system, fake_smtp, sms_outbox, django_capture_on_commit_callbacks
):
    smtp = fake_smtp(refused={"gone@example.test"})
    gone = subscribe(system, email="gone@example.test")
    for n in range(3):
        subscribe(system, email=f"s{n}@example.test")

    update = post_update(django_capture_on_commit_callbacks, system)

    assert sorted(smtp.delivered) == [f"s{n}@example.test" for n in range(3)]
    assert smtp.connections == 1
    assert update.deliveries.get(subscriber=gone).state == "failed"
    gone.refresh_from_db()
    assert gone.email_failed_on is not None


def test_retry_delay_grows_exponentially_each_within_20_percent():
    delays = [sending.retry_delay(n) for n in (1, 2, 3, 4)]
    schedule = [30, 120, 480, 1920]
    assert all(0.8 * s <= d <= 1.2 * s for d, s in zip(delays, schedule, strict=True)), delays
    # Deliveries that failed together (a provider's outage) do not all come back together.
    assert len({sending.retry_delay(1) for _ in range(20)}) > 1


def test_the_sweep_finds_fan_outs_whose_tasks_were_lost(system):
    now = timezone.now()
    subscribe(system, email="a@example.test")
    lost = UpdateFactory(trail_system=system, notify=True, created_on=now - timedelta(minutes=20))
    just_queued = UpdateFactory(trail_system=system, notify=True, created_on=now)
    silent = UpdateFactory(trail_system=system, created_on=now - timedelta(minutes=20))
    stuck = UpdateFactory(trail_system=system, notify=True, created_on=now - timedelta(hours=2))
    recipients.record_deliveries(stuck)
    stuck.deliveries.update(created_on=now - timedelta(minutes=30))
    retrying = UpdateFactory(trail_system=system, notify=True, created_on=now - timedelta(hours=2))
    recipients.record_deliveries(retrying)
    retrying.deliveries.update(created_on=now - timedelta(minutes=30), attempts=1)

    found = recipients.updates_to_sweep(now)

    assert sorted(found) == sorted([lost.pk, stuck.pk])
    assert just_queued.pk not in found and silent.pk not in found


def test_the_sweep_sends_what_a_broker_outage_left_unsent(system, sms_outbox):
    subscribe(system, email="a@example.test", phone="+15145550101")
    UpdateFactory(
        trail_system=system, notify=True, created_on=timezone.now() - timedelta(hours=0.5)
    )

    assert sweep_notifications() == 1

    assert len(mail.outbox) == 1 and len(sms_outbox) == 1
    assert sweep_notifications() == 0


def test_a_posted_fan_out_is_marked_queued_and_one_a_broker_outage_kept_back_is_queued_soon(
    system, sms_outbox, django_capture_on_commit_callbacks
):
    subscribe(system, email="a@example.test", phone="+15145550101")
    queued = post_update(django_capture_on_commit_callbacks, system)
    queued.refresh_from_db()
    assert queued.fan_out_queued_on is not None
    mail.outbox.clear()
    sms_outbox.clear()

    now = timezone.now()
    # Posted while the broker was down: committed, never queued, never fanned out.
    kept_back = UpdateFactory(
        trail_system=system, notify=True, created_on=now - timedelta(seconds=30)
    )
    just_posted = UpdateFactory(trail_system=system, notify=True, created_on=now)
    too_old = UpdateFactory(trail_system=system, notify=True, created_on=now - timedelta(hours=2))
    UpdateFactory(trail_system=system, created_on=now - timedelta(seconds=30))  # no notify

    assert recipients.unqueued_fan_outs(now) == [kept_back.pk]
    assert tasks.queue_unqueued_fan_outs() == 1

    assert len(mail.outbox) == 1 and len(sms_outbox) == 1
    kept_back.refresh_from_db()
    assert kept_back.fan_out_queued_on is not None
    assert tasks.queue_unqueued_fan_outs() == 0
    assert len(mail.outbox) == 1
    assert just_posted.pk not in recipients.unqueued_fan_outs()
    assert too_old.pk not in recipients.unqueued_fan_outs()


def test_a_notice_about_some_trails_names_them(
    system, sms_outbox, django_capture_on_commit_callbacks
):
    subscribe(system, email="a@example.test")
    trail = TrailFactory(trail_system=system, name="Ridge Loop")
    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(trail_system=system, notify=True, description="Fallen tree.")
        update.trails.set([trail])
        tasks.notify_subscribers_on_commit(update.pk)

    assert "Trail: Ridge Loop" in mail.outbox[0].body
    assert "Ridge Loop" in mail.outbox[0].alternatives[0][0]


@pytest.mark.parametrize(
    ("language", "names", "said"),
    [
        ("fr", ["Timber Trail"], "Sentier : "),
        ("fr", ["Timber Trail", "Ridge Run"], "Sentiers : "),
        ("en", ["Timber Trail", "Ridge Run"], "Trails: "),
    ],
)
def test_the_trails_of_a_notice_are_counted_in_the_systems_language(
    language, names, said, sms_outbox, django_capture_on_commit_callbacks
):
    system = TrailSystemFactory(name="Mont Vert", language=language)
    subscribe(system, email="a@example.test")
    trails = [TrailFactory(trail_system=system, name=name) for name in names]
    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(trail_system=system, notify=True, description="Arbre tombé.")
        update.trails.set(trails)
        tasks.notify_subscribers_on_commit(update.pk)
    line = next(line for line in mail.outbox[0].body.splitlines() if line.startswith(said))
    assert sorted(line.removeprefix(said).split(", ")) == sorted(names)


def test_an_unreachable_mail_server_is_retried_and_nothing_is_left_half_sent(
    system, fake_smtp, sms_outbox, settings, django_capture_on_commit_callbacks
):
    smtp = fake_smtp()
    smtp.shutdown()
    smtp.server_close()
    subscribe(system, email="a@example.test", phone="+15145550101")

    update = post_update(django_capture_on_commit_callbacks, system)

    email = update.deliveries.get(channel="email")
    assert email.state == "failed" and email.attempts == sending.MAX_ATTEMPTS
    assert "Connection" in email.error
    assert update.deliveries.get(channel="sms").state == "sent"


def test_the_fan_out_records_slice_by_slice_and_each_row_once(system):
    for n in range(5):
        subscribe(system, email=f"s{n}@example.test", phone=f"+1514555010{n}")
    update = UpdateFactory(trail_system=system, notify=True)

    slices = list(recipients.recorded_slices(update, size=2))
    again = list(recipients.recorded_slices(update, size=2))

    assert [(channel, len(ids)) for channel, ids in slices] == [
        ("email", 2), ("email", 2), ("email", 1), ("sms", 2), ("sms", 2), ("sms", 1),
    ]  # fmt: skip
    recorded = sorted(pk for _, ids in slices for pk in ids)
    assert recorded == sorted(update.deliveries.values_list("pk", flat=True))
    assert all(ids == [] for _, ids in again)
