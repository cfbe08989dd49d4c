"""A notification SMS that a provider accepts, at a price a resort can pay (issue 26 item 2):
at most 1,600 characters, better two segments, the text cut at a word boundary with "..."
and the map link where the rider reads the rest."""

import pytest
from django.core import mail

from tests.factories import SubscriberFactory, TrailSystemFactory, UpdateFactory
from updates import tasks
from updates.notifications.sms_text import is_gsm, segments, units

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]

AVALANCHE = (
    "Avalanche danger is HIGH above the tree line today. Natural avalanches are likely and "
    "human-triggered avalanches very likely on the ridge trails. "
)


def notify(django_capture_on_commit_callbacks, system, description: str):
    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(
            trail_system=system, type="notice", severity="danger", description=description,
            notify=True,
        )  # fmt: skip
        tasks.notify_subscribers_on_commit(update.pk)
    return update


def test_a_4000_character_notice_reaches_a_twilio_that_refuses_over_1600(
    fake_twilio, settings, django_capture_on_commit_callbacks
):
    settings.PUBLIC_BASE_URL = "https://trails.example.test"
    server = fake_twilio()
    system = TrailSystemFactory(name="Lost Trail Powder Mountain", language="en")
    subscriber = SubscriberFactory(
        trail_system=system, email="a@example.test", phone="+14065550123"
    )
    notice = (AVALANCHE * 40)[:4000]

    update = notify(django_capture_on_commit_callbacks, system, notice)

    [request] = server.requests
    body = request.form["Body"][0]
    assert update.deliveries.get(channel="sms").state == "sent"
    assert len(body) <= 1600 and segments(body) <= 2 and is_gsm(body)
    assert body.startswith("Lost Trail Powder Mountain - Notice\nDanger: Avalanche danger is HIGH")
    text = body.split("\n")[1]
    assert text.endswith("...") and not text.endswith(" ...") and len(text) > 100
    assert notice.startswith(text.removeprefix("Danger: ").removesuffix("..."))
    assert f"\nMap: https://trails.example.test/map/{system.pk}\n" in body
    assert f"/unsubscribe/{subscriber.unsubscribe_token} or reply STOP" in body
    # The e-mail keeps the whole notice.
    assert notice in mail.outbox[0].body


def test_a_short_notice_is_sent_whole(sms_outbox, django_capture_on_commit_callbacks):
    system = TrailSystemFactory(name="Mont Vert", language="en")
    SubscriberFactory(trail_system=system, phone="+14065550123")
    notify(django_capture_on_commit_callbacks, system, "Lift 2 opens at 10.")
    [sms] = sms_outbox
    assert "Danger: Lift 2 opens at 10.\nMap: " in sms.body and "..." not in sms.body
    assert segments(sms.body) <= 2  # the unsubscribe link alone takes half


def test_a_text_in_unicode_keeps_to_two_segments_and_the_map_link(
    sms_outbox, django_capture_on_commit_callbacks
):
    """French with ê, â or ô is UCS-2 (134 code units in two segments): the unsubscribe link
    alone would fill them, so the message keeps "reply STOP" and the whole map link."""
    system = TrailSystemFactory(name="Forêt Montmorency", language="fr")
    SubscriberFactory(trail_system=system, phone="+15145550101")
    notice = (
        "Danger d'avalanche élevé au-dessus de la forêt : pistes fermées jusqu'à nouvel ordre. "
        * 20
    )

    notify(django_capture_on_commit_callbacks, system, notice)

    [sms] = sms_outbox
    head, text, *rest = sms.body.split("\n")
    assert head == "Forêt Montmorency - Avis" and not is_gsm(sms.body)
    assert segments(sms.body) <= 2 and units(sms.body, False) <= 134
    assert text.endswith("...") and notice.startswith(text.removeprefix("Danger : ")[:-3])
    assert rest[0] == f"Carte : http://127.0.0.1:8000/map/{system.pk}"
    assert rest[1] == "Désabonnement : répondez ARRET"


@pytest.mark.parametrize(
    ("name", "filler"),
    [
        ("Lost Trail Powder Mountain", "Trails [3-7] closed; day pass refund 20€ ~ ask {desk}. "),
        ("Lost Trail Powder Mountain", "Avalanche danger ❄ HIGH above the tree line today. "),
        ("Very Long Name " * 133, "Avalanche danger is HIGH above the tree line today. "),
        ("Grand Domaine Nordique 🎿 des Hautes Vallées du Massif", "Pistes fermées 🎿. "),
    ],
)
def test_a_4900_character_notice_is_at_most_two_segments_with_the_map_link_after_its_text(
    sms_outbox, django_capture_on_commit_callbacks, settings, name, filler
):
    """Counted as the carrier counts: extension characters (€ [ ] { } ~) take two septets,
    characters outside the BMP two UTF-16 code units."""
    settings.PUBLIC_BASE_URL = "https://trails.example.test"
    system = TrailSystemFactory(name=name, language="en")
    SubscriberFactory(trail_system=system, phone="+14065550123")
    notice = (filler * 200)[:4900]

    notify(django_capture_on_commit_callbacks, system, notice)

    [sms] = sms_outbox
    gsm = is_gsm(sms.body)
    assert segments(sms.body) <= 2
    assert units(sms.body, gsm) <= (306 if gsm else 134)
    _, text, map_line, stop_line = sms.body.split("\n")
    assert text.endswith("...")
    assert map_line == f"Map: https://trails.example.test/map/{system.pk}"
    assert stop_line.endswith("reply STOP")


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("a" * 160, 1),
        ("a" * 161, 2),
        ("a" * 306, 2),
        ("a" * 307, 3),
        ("€" * 80, 1),  # an extension character takes two septets
        ("€" * 81, 2),
        ("ê" * 70, 1),  # not in the GSM alphabet: UCS-2
        ("ê" * 71, 2),
        ("❄" * 134, 2),
        ("🎿" * 35, 1),  # outside the BMP: two code units each
        ("🎿" * 36, 2),
    ],
)
def test_segments_are_counted_as_carriers_count_them(text, count):
    assert segments(text) == count


def test_units_are_septets_or_utf16_code_units():
    assert units("Trail [closed] €5", True) == 20
    assert units("🎿 ok", False) == 5
