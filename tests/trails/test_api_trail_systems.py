"""GET/PATCH /trail-systems, POST .../compile and GET .../weather."""

import pytest

from publishing.models import CompileRequest
from tests.factories import MembershipFactory, TrailSystemFactory, UserFactory
from trails.models import TrailSystem

pytestmark = pytest.mark.django_db

LIST_FIELDS = {
    "id", "name", "role", "inactive", "language", "totalTrails", "openTrails",
    "cautionTrails", "closedTrails", "geolocation", "updatedOn",
}  # fmt: skip
DOCUMENT_FIELDS = {
    "id", "role", "name", "description", "phoneNumber", "website", "language",
    "depthMeasurement", "lengthMeasurement", "tempMeasurement", "inactive", "hideName",
    "promoteTrailHUB", "geolocation", "totalTrails", "openTrails", "cautionTrails",
    "closedTrails", "totalDistance", "openDistance", "activities", "updates", "subscription",
    "createdOn", "updatedOn", "updatedBy", "ownerId",
    # Additive (issue 26): sign-up by text message.
    "smsCountries", "smsConfirmationsPerDay",
    "timeZone",  # additive (issue 23): the zone of scheduled changes
    "unconfirmedAfterHours",  # additive (issue 21): off (null) by default
    "geolocationDerived",  # additive (issue 25): geolocation is the centre of the trails
    "closuresUrl",  # additive (issue 44): the stretches of trail closed now
    "reportsPerDay",  # additive (issue 35): rider reports per day
    "groomersLive",  # additive (issue 34): machines grooming now on the public map
    # Additive (issue 45): the terms of reuse /feeds/<id>/index.json states.
    "licenseUrl", "attributionName", "attributionUrl",
}  # fmt: skip
TEXT_FIELDS = [
    "name", "description", "phoneNumber", "website", "depthMeasurement", "lengthMeasurement",
]  # fmt: skip


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def url(system, suffix: str = "") -> str:
    return f"/api/v1/trail-systems/{system.pk}{suffix}"


class TestList:
    def test_lists_the_systems_the_caller_manages_by_name(self, client_for):
        me = UserFactory()
        owned = TrailSystemFactory(name="Zeta", owner=me)
        member = MembershipFactory(user=me, trail_system__name="Alpha", role="Groomer")
        TrailSystemFactory(name="Beta")
        body = client_for(me).get("/api/v1/trail-systems").json()
        systems = body["trailSystems"]
        assert [(s["id"], s["role"]) for s in systems] == [
            (member.trail_system.pk, "Groomer"),
            (owned.pk, "Administrator"),
        ]
        assert set(systems[0]) == LIST_FIELDS
        assert systems[1]["geolocation"] == {"lat": 45.69, "lng": -113.95}
        assert systems[1]["updatedOn"].endswith("Z")

    def test_a_restricted_key_lists_only_its_systems(self, key_client_for):
        me = UserFactory()
        kept, _ = TrailSystemFactory(owner=me), TrailSystemFactory(owner=me)
        client = key_client_for(me, trail_system_ids=[kept.pk])
        systems = client.get("/api/v1/trail-systems").json()["trailSystems"]
        assert [s["id"] for s in systems] == [kept.pk]

    def test_all_is_for_super_admins_only(self, client_for):
        TrailSystemFactory.create_batch(3)
        me = UserFactory()
        assert client_for(me).get("/api/v1/trail-systems?all=true").json()["trailSystems"] == []
        me.is_super_admin = True
        me.save()
        systems = client_for(me).get("/api/v1/trail-systems?all=true").json()["trailSystems"]
        assert len(systems) == 3
        assert {s["role"] for s in systems} == {"Administrator"}

    def test_all_lists_at_most_500(self, client_for):
        owner = UserFactory()
        TrailSystem.objects.bulk_create(
            TrailSystem(name=f"System {n:03d}", owner=owner) for n in range(501)
        )
        boss = UserFactory(is_super_admin=True)
        systems = client_for(boss).get("/api/v1/trail-systems?all=true").json()["trailSystems"]
        assert len(systems) == 500
        assert systems[-1]["name"] == "System 499"


class TestDocument:
    def test_full_document_without_internal_fields(self, system, manager):
        body = manager.get(url(system)).json()
        assert set(body) == DOCUMENT_FIELDS
        assert body["role"] == "Administrator"
        assert body["ownerId"] == system.owner.pk
        assert body["geolocation"] == {"lat": 45.69, "lng": -113.95}
        assert body["createdOn"].endswith("Z")

    def test_statistics_updates_and_weather_come_from_the_stored_document(self, client_for):
        system = TrailSystemFactory(
            total_trails=4,
            open_trails=2,
            open_distance=3.5,
            activity_totals=[{"value": "skiing", "totalTrails": 4}],
            published_updates={"notice": [{"description": "Hi"}]},
            weather={"temp": -3},
        )
        body = client_for(system.owner).get(url(system)).json()
        assert set(body) == DOCUMENT_FIELDS | {"weather"}
        assert (body["totalTrails"], body["openTrails"], body["openDistance"]) == (4, 2, 3.5)
        assert body["activities"] == [{"value": "skiing", "totalTrails": 4}]
        assert body["updates"] == {"notice": [{"description": "Hi"}]}
        assert body["weather"] == {"temp": -3}

    def test_a_trustee_sees_their_role(self, system, client_for):
        trustee = MembershipFactory(trail_system=system).user
        assert client_for(trustee).get(url(system)).json()["role"] == "Trustee"


class TestChange:
    def test_changes_only_the_fields_sent(self, system, manager):
        response = manager.patch(
            url(system),
            {"name": "Mont Blanc", "language": "fr", "promoteTrailHUB": True, "unknown": 1},
            format="json",
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body) == DOCUMENT_FIELDS
        assert (body["name"], body["language"], body["promoteTrailHUB"]) == (
            "Mont Blanc",
            "fr",
            True,
        )
        assert body["updatedBy"] == system.owner.pk
        system.refresh_from_db()
        assert system.temp_measurement == "fahrenheit"
        assert system.promote_trail_hub is True

    def test_does_not_queue_a_compile(self, system, manager):
        manager.patch(url(system), {"inactive": True}, format="json")
        assert not CompileRequest.objects.filter(trail_system=system).exists()

    @pytest.mark.parametrize(
        ("sent", "stored"),
        [
            ("example.com", "http://example.com"),
            ("https://example.com/a", "https://example.com/a"),
            ("HTTP://example.com", "HTTP://example.com"),
            ("", ""),
        ],
    )
    def test_website_gets_http_when_it_has_no_scheme(self, system, manager, sent, stored):
        assert (
            manager.patch(url(system), {"website": sent}, format="json").json()["website"] == stored
        )

    @pytest.mark.parametrize("field", TEXT_FIELDS)
    def test_text_fields_hold_at_most_2000_characters(self, system, manager, field):
        longest = "https://" + "a" * 1992 if field == "website" else "a" * 2000
        assert manager.patch(url(system), {field: longest}, format="json").status_code == 200
        response = manager.patch(url(system), {field: longest + "a"}, format="json")
        assert error(response) == (400, "invalid_field")

    def test_the_terms_of_reuse_are_http_urls_and_one_line(self, system, manager):
        terms = {
            "licenseUrl": "https://opendatacommons.org/licenses/odbl/1-0/",
            "attributionName": "OpenStreetMap contributors",
            "attributionUrl": "https://www.openstreetmap.org/copyright",
        }
        body = manager.patch(url(system), terms, format="json").json()
        assert {name: body[name] for name in terms} == terms
        for name, wrong in [
            ("licenseUrl", "javascript:alert(1)"),
            ("attributionUrl", "example.com"),
            ("attributionName", "two\nlines"),
        ]:
            response = manager.patch(url(system), {name: wrong}, format="json")
            assert error(response) == (400, "invalid_field")
            assert name in response.json()["error"]["message"]
        system.refresh_from_db()
        assert system.license_url == terms["licenseUrl"]

    def test_the_http_prefix_counts_toward_the_limit(self, system, manager):
        response = manager.patch(url(system), {"website": "a" * 1994}, format="json")
        assert error(response) == (400, "invalid_field")

    @pytest.mark.parametrize(
        "body",
        [
            {"language": "de"},
            {"tempMeasurement": "kelvin"},
            {"inactive": "true"},
            {"hideName": 1},
            {"promoteTrailHUB": None},
            {"name": 42},
            {"name": ""},
        ],
    )
    def test_wrong_values_are_invalid_field(self, system, manager, body):
        assert error(manager.patch(url(system), body, format="json")) == (400, "invalid_field")

    @pytest.mark.parametrize("body", [{}, {"ownerId": "me", "totalTrails": 9}])
    def test_a_body_with_no_editable_field_is_no_changes(self, system, manager, body):
        assert error(manager.patch(url(system), body, format="json")) == (400, "no_changes")


def test_compile_returns_the_stored_request(system, manager):
    response = manager.post(url(system, "/compile"))
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"ok", "compileRequestId"}
    assert body["ok"] is True
    assert CompileRequest.objects.filter(pk=body["compileRequestId"], trail_system=system).exists()


@pytest.mark.parametrize(("tier", "expected"), [("free", None), ("pro", {"tempC": -3})])
def test_weather_only_for_tiers_that_collect_it(client_for, tier, expected):
    system = TrailSystemFactory(subscription=tier, weather={"tempC": -3})
    body = client_for(system.owner).get(url(system, "/weather")).json()
    assert body == {"trailSystemId": system.pk, "weather": expected}
