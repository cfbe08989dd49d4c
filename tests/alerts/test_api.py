"""POST /alerts/<system id>, the VAPID key, and the rider's manage URL: what a rider (or a
script pretending to be one) gets for good and bad input, and what is stored."""

import pytest
from django.test import override_settings

from alerts.models import Follower, Rule
from core.actors import Actor, Via
from tests.alerts.push_service import Subscription
from tests.factories import TrailActivityFactory, TrailFactory
from tests.fake_http import FakeServer
from trails.trash import trash_trail

pytestmark = pytest.mark.django_db


@pytest.fixture
def push_service():
    with FakeServer(lambda request: (201, b"")) as server:
        yield server


@pytest.fixture
def trail(system):
    trail = TrailFactory(trail_system=system, name="Upper Loop", status="Open")
    TrailActivityFactory(trail=trail, value="classic", status="Open")
    return trail


def post(client, system, body: dict, **headers):
    return client.post(f"/alerts/{system.pk}", body, content_type="application/json", **headers)


def push_body(server, rules: list[dict], **more) -> dict:
    return {
        "channel": "push",
        "subscription": Subscription.to(server).json(),
        "rules": rules,
        **more,
    }


def error_of(answer) -> dict:
    return answer.json()["error"]


def test_the_vapid_key_is_an_uncompressed_p256_point(client):
    key = client.get("/alerts/vapid-public-key").json()["publicKey"]
    from tests.alerts.push_service import unb64url

    raw = unb64url(key)
    assert len(raw) == 65 and raw[0] == 4


def test_follow_and_manage(client, system, trail, push_service):
    body = push_body(
        push_service,
        [
            {
                "trailId": trail.pk,
                "activity": "classic",
                "on": ["groomed"],
                "condition": "classicGroomed",
            },
            {"trailId": None, "on": ["notices", "snow"], "snowCm": 10},
        ],
        quietHours={"from": "22:00", "to": "06:30"},
        oncePerDay=True,
    )
    answer = post(client, system, body)
    assert answer.status_code == 201
    manage = answer.json()["manageUrl"]
    path = manage.split("://", 1)[1].split("/", 1)[1]

    document = client.get(f"/{path}", HTTP_ACCEPT="application/json").json()
    assert document["rules"] == [
        {
            "trailId": trail.pk,
            "activity": "classic",
            "on": ["groomed"],
            "condition": "classicGroomed",
            "snowCm": None,
        },
        {
            "trailId": None,
            "activity": None,
            "on": ["notices", "snow"],
            "condition": None,
            "snowCm": 10.0,
        },
    ]
    assert document["quietHours"] == {"from": "22:00", "to": "06:30"}
    assert document["oncePerDay"] is True
    page = client.get(f"/{path}")
    assert b"Upper Loop" in page.content and b"Remove all my alerts" in page.content

    changed = client.put(
        f"/{path}",
        {"rules": [{"trailId": trail.pk, "on": ["opens"]}]},
        content_type="application/json",
    )
    assert changed.status_code == 200
    assert changed.json()["rules"][0]["on"] == ["opens"]
    assert changed.json()["quietHours"] == {"from": "22:00", "to": "06:30"}
    assert Rule.objects.count() == 1

    assert client.delete(f"/{path}").status_code == 204
    assert not Follower.objects.exists()
    assert client.get(f"/{path}", HTTP_ACCEPT="application/json").status_code == 404


def test_a_rule_on_a_trail_moved_to_the_trash_still_names_that_trail(
    client, system, trail, push_service
):
    """Not "All trails": the rider would think the rule follows every trail."""
    answer = post(client, system, push_body(push_service, [{"trailId": trail.pk, "on": ["opens"]}]))
    trash_trail(trail=trail, actor=Actor(system.owner.uid, Via.API_KEY))

    page = client.get(answer.json()["manageUrl"]).content.decode()

    assert "Upper Loop" in page and "All trails" not in page


def test_the_alerts_page_of_a_french_system_names_the_kinds_in_french(
    client, system, trail, push_service
):
    """Not the rule's keys ("opens, closes, snow"), which read as English on a French page."""
    system.language = "fr"
    system.save(update_fields=["language"])
    rules = [{"trailId": trail.pk, "on": ["opens", "closes", "snow"]}]
    answer = post(client, system, push_body(push_service, rules))

    page = client.get(answer.json()["manageUrl"]).content.decode()

    assert "Upper Loop: ouvre, ferme, neige" in page


def test_the_alerts_page_gives_a_snow_rule_s_depth_in_the_system_s_unit(
    client, system, trail, push_service
):
    system.depth_measurement = "inches"
    system.save(update_fields=["depth_measurement"])
    rules = [{"trailId": trail.pk, "on": ["opens", "snow"], "snowCm": 10.16}]
    answer = post(client, system, push_body(push_service, rules))

    page = client.get(answer.json()["manageUrl"]).content.decode()

    assert "Upper Loop: opens, snow (new snow in 24 h, at least 4 in)" in page


def test_following_again_with_the_same_subscription_replaces_the_rules(
    client, system, trail, push_service
):
    body = push_body(push_service, [{"trailId": trail.pk, "on": ["closes"]}])
    post(client, system, body)
    post(client, system, {**body, "rules": [{"trailId": None, "on": ["opens"]}]})
    assert Follower.objects.count() == 1
    assert list(Rule.objects.values_list("trail_id", "on")) == [(None, ["opens"])]


@pytest.mark.parametrize(
    "change, status, field",
    [
        ({"subscription": {"endpoint": "https://fcm.googleapis.com/x"}}, 400, "subscription.keys"),
        ({"subscription": "nope"}, 400, "subscription"),
        ({"subscription.keys.p256dh": "AAAA"}, 400, "subscription.keys.p256dh"),
        ({"subscription.keys.auth": "AAAA"}, 400, "subscription.keys.auth"),
        ({"subscription.endpoint": "http://push.example.com/x"}, 400, "subscription.endpoint"),
        ({"subscription.endpoint": "https://push.example.com/x"}, 400, "subscription.endpoint"),
        ({"subscription.endpoint": "http://fcm.googleapis.com/x"}, 400, "subscription.endpoint"),
        ({"rules": [{"trailId": "nope", "on": ["closes"]}]}, 404, "rules[0].trailId"),
        ({"rules": [{"trailId": ["nope"], "on": ["closes"]}]}, 404, "rules[0].trailId"),
        ({"rules": [{"trailId": None}]}, 400, "rules[0].on"),
        ({"rules": [{"trailId": None, "on": []}]}, 400, "rules[0].on"),
        ({"rules": [{"trailId": None, "on": ["explodes"]}]}, 400, "rules[0].on"),
        ({"rules": []}, 400, "rules"),
        ({"rules": [{"trailId": None, "on": ["snow"], "snowCm": -1}]}, 400, "rules[0].snowCm"),
        (
            {"rules": [{"trailId": None, "on": ["groomed"], "condition": "<b>"}]},
            400,
            "rules[0].condition",
        ),
        ({"quietHours": {"from": "25:00", "to": "06:00"}}, 400, "quietHours.from"),
        ({"oncePerDay": "yes"}, 400, "oncePerDay"),
        ({"channel": "carrier-pigeon"}, 400, "channel"),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_stored(
    client, system, trail, push_service, change, status, field
):
    body = push_body(push_service, [{"trailId": trail.pk, "on": ["closes"]}])
    for name, value in change.items():
        *path, last = name.split(".")
        target = body
        for part in path:
            target = target[part]
        target[last] = value
    answer = post(client, system, body)
    assert answer.status_code == status
    assert error_of(answer)["field"] == field
    assert not Follower.objects.exists()


def test_an_unlisted_http_host_is_refused_even_on_loopback(client, system, trail, settings):
    settings.WEB_PUSH_EXTRA_HOSTS = []
    body = {
        "channel": "push",
        "subscription": Subscription.to(type("S", (), {"url": "http://127.0.0.1:9"})()).json(),
        "rules": [{"trailId": trail.pk, "on": ["closes"]}],
    }
    answer = post(client, system, body)
    assert answer.status_code == 400
    assert error_of(answer)["field"] == "subscription.endpoint"


def test_known_push_services_are_accepted(client, system, trail, settings):
    settings.WEB_PUSH_EXTRA_HOSTS = []
    hosts = [
        "fcm.googleapis.com",
        "updates.push.services.mozilla.com",
        "web.push.apple.com",
        "wns2-par02p.notify.windows.com",
    ]
    for host in hosts:
        subscription = Subscription.to(type("S", (), {"url": f"https://{host}"})()).json()
        body = {
            "channel": "push",
            "subscription": subscription,
            "rules": [{"trailId": None, "on": ["closes"]}],
        }
        assert post(client, system, body).status_code == 201, host
    assert Follower.objects.count() == 4


def test_unknown_system_and_malformed_json(client, system):
    answer = client.post("/alerts/nope", {}, content_type="application/json")
    assert answer.status_code == 404
    answer = client.post(f"/alerts/{system.pk}", "{", content_type="application/json")
    assert (answer.status_code, error_of(answer)["code"]) == (400, "invalid_json")


@override_settings(ALERTS_SIGNUPS_PER_CLIENT_MINUTE=5, ALERTS_SIGNUPS_PER_SYSTEM_MINUTE=100)
def test_300_sign_ups_from_60_addresses_in_a_minute_stop_at_the_bounds(
    client, system, trail, push_service
):
    answers = []
    for n in range(300):
        address = f"198.51.100.{n % 60 + 1}"
        body = push_body(push_service, [{"trailId": trail.pk, "on": ["closes"]}])
        answers.append(post(client, system, body, REMOTE_ADDR=address))
    statuses = [answer.status_code for answer in answers]
    assert statuses.count(201) == 100
    assert statuses.count(429) == 200
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert refused["Retry-After"] == "60"
    assert error_of(refused)["code"] == "too_many_requests"
    assert Follower.objects.count() == 100


def test_the_map_is_an_installable_web_app(client, system):
    page = client.get(f"/map/{system.pk}").content.decode()
    assert f'<link rel="manifest" href="/map/{system.pk}/manifest.webmanifest">' in page
    manifest = client.get(f"/map/{system.pk}/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    document = manifest.json()
    assert document["start_url"] == f"/map/{system.pk}"
    assert document["display"] == "standalone"
    assert {icon["sizes"] for icon in document["icons"]} == {"192x192", "512x512"}
    for icon in document["icons"]:
        assert client.get(icon["src"]).status_code == 200
    worker = client.get("/service-worker.js")
    assert worker["Content-Type"].startswith("text/javascript")
    assert "no-cache" in worker["Cache-Control"]
    assert 'addEventListener("push"' in worker.content.decode()
