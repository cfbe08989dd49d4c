"""Names are one line of text (issue 26 item 5): a system named `Bob\\r\\nBcc: evil@x.test` would
forge lines in plain-text e-mails and SMS. Every single-line name refuses control characters
with 400 invalid_field, and the web app's forms say the same; descriptions and notices keep
their line breaks."""

import pytest
from django.urls import reverse

from tests.config.api_surface import assert_envelope
from tests.factories import PointFactory, TrailFactory, UserFactory, line
from tests.webapp.test_admin import point_form, trail_form
from trails.models import Point, Trail, TrailSystem

pytestmark = pytest.mark.django_db

FORGED = "Bob\r\nBcc: evil@x.test\r\n\r\nbody"
CONTROLS = [FORGED, "a\nb", "a\rb", "a\tb", "a\x00b", "a\x1bb", "a\x7fb", "a\x85b", "a\x9bb"]
CONTROLS += ["a\u2028b"]
# Format characters that hide text or reorder it (issue 31 item 5).
CONTROLS += ["Open\u202e", "a\u200bb", "a\u200db", "a\u200fb", "a\u202ab", "a\u2066b"]
CONTROLS += ["a\u2069b", "a\u2060b", "\ufeffa"]
# The invisible characters the attack pass still got through (issue 40 item 5): Arabic letter
# mark, soft hyphen, tag characters (an invisible "Open" spelt in tags), invisible operators,
# the Hangul fillers.
CONTROLS += [
    "a\u061cb",
    "Ski\u00adweg",
    "Loop\U000e004f\U000e0070\U000e0065\U000e006e",
    "a\U000e0001b",
]
CONTROLS += ["a\u2061b", "a\u2064b", "\u115fa", "a\u1160b", "\u3164", "a\uffa0b"]
RULE = (
    "one line of text, without control characters (line breaks, tabs) or invisible "
    "formatting characters (zero-width, direction marks)"
)


@pytest.mark.parametrize("name", CONTROLS)
def test_every_api_name_refuses_control_characters(system, manager, name):
    trail, point = TrailFactory(trail_system=system), PointFactory(trail_system=system)
    writes = [
        ("patch", f"/api/v1/trail-systems/{system.pk}", {"name": name}),
        ("post", f"/api/v1/trail-systems/{system.pk}/trails", {"name": name, "geometry": line()}),
        ("patch", f"/api/v1/trails/{trail.pk}", {"name": name}),
        ("patch", f"/api/v1/trails/{trail.pk}", {"categories": ["Nordic", name]}),
        (
            "post",
            f"/api/v1/trail-systems/{system.pk}/points",
            {"name": name, "markerClass": "parking", "lat": 45.7, "lng": -113.9},
        ),
        ("patch", f"/api/v1/points/{point.pk}", {"name": name}),
        ("post", "/api/v1/keys", {"name": name}),
    ]
    for method, path, body in writes:
        response = getattr(manager, method)(path, body, format="json")
        assert_envelope(response, 400, "invalid_field")
        assert RULE in response.json()["error"]["message"], path
    assert TrailSystem.objects.get(pk=system.pk).name == system.name
    assert Trail.objects.get(pk=trail.pk).name == trail.name
    assert Trail.objects.count() == 1 and Point.objects.count() == 1
    assert not system.owner.api_keys.exists()


def test_names_in_other_scripts_and_multi_line_descriptions_are_kept(system, manager):
    response = manager.patch(
        f"/api/v1/trail-systems/{system.pk}",
        {"name": "Piste de l'Étoile ❄ 滑雪", "description": "Line one\nLine two"},
        format="json",
    )
    assert response.status_code == 200
    system.refresh_from_db()
    assert system.description == "Line one\nLine two"
    notice = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "Avalanche danger.\r\n\r\nStay off the ridge."},
        format="json",
    )
    assert notice.status_code == 201
    assert notice.json()["description"] == "Avalanche danger.\r\n\r\nStay off the ridge."


def test_a_notice_loses_the_bidi_controls_that_would_turn_its_text_around(system, manager):
    """The attack pass: "Trail \u202eNEPO\u202c" showed as "Trail OPEN" in every message."""
    url = f"/api/v1/trail-systems/{system.pk}/updates"
    text = (
        "Ridge trail \u202edesolc\u202c today.\n\u2067\u05e1\u05d2\u05d5\u05e8\u2069 \u200fclosed"
    )
    notice = manager.post(url, {"type": "notice", "description": text}, format="json")
    assert notice.status_code == 201
    expected = "Ridge trail desolc today.\n\u05e1\u05d2\u05d5\u05e8 \u200fclosed"
    assert notice.json()["description"] == expected
    changed = manager.patch(
        f"/api/v1/updates/{notice.json()['id']}",
        {"description": "Open \u2066again\u2069"},
        format="json",
    )
    assert changed.status_code == 200
    assert changed.json()["description"] == "Open again"


def test_the_schema_says_names_are_one_line(client):
    schemas = client.get("/api/v1/schema").json()["components"]["schemas"]
    name = schemas["TrailCreateRequest"]["properties"]["name"]
    assert name["pattern"] == (
        "^[^\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u115f\\u1160\\u200b-\\u200f"
        "\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\u3164\\ufeff\\uffa0"
        "\U000e0000-\U000e007f]*$"
    )
    category = schemas["TrailCreateRequest"]["properties"]["categories"]["items"]
    assert category["pattern"] == name["pattern"]
    assert schemas["KeyCreateRequest"]["properties"]["name"]["pattern"] == name["pattern"]


@pytest.fixture
def operator(client):
    client.force_login(UserFactory(uid="uid-staff", is_staff=True, is_superuser=True))
    return client


def shows_the_rule(response) -> bool:
    return response.status_code == 200 and f"Must be {RULE}." in response.content.decode()


def test_the_web_app_forms_refuse_control_characters(operator, system):
    trail = TrailFactory(trail_system=system)
    point = PointFactory(trail_system=system)

    change = reverse("admin:trails_point_change", args=[point.pk])
    assert shows_the_rule(operator.post(change, point_form(point, system, name="P\tQ")))
    assert Point.objects.get(pk=point.pk).name == point.name

    form = trail_form(system, line(), []) | {"name": "Ridge\r\nLoop"}
    assert shows_the_rule(operator.post(reverse("admin:trails_trail_add"), form))
    form = trail_form(system, line(), []) | {"categories": "Nordic\nNight\tskiing"}
    response = operator.post(reverse("admin:trails_trail_add"), form)
    assert response.status_code == 200
    assert f"Each must be {RULE}." in response.content.decode()
    assert list(Trail.objects.values_list("pk", flat=True)) == [trail.pk]

    response = operator.post(
        reverse("admin:apikeys_apikey_add"), {"name": "key\x1b[31m", "access": "write"}
    )
    assert shows_the_rule(response)
