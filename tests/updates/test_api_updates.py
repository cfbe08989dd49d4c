"""Update endpoints: list, get, create (each type), PATCH, DELETE, expiry and limits."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from core.dates import iso_ms
from publishing.models import CompileRequest
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory, UpdateFactory
from trails.models import Trail
from updates.models import Update

pytestmark = pytest.mark.django_db

COMMON_FIELDS = {
    "id", "trailSystemId", "type", "label", "attachToTrails", "expirationDate", "notify",
    "relevantTrails", "trailIds", "createdOn", "createdBy", "updatedOn", "updatedBy", "source",
}  # fmt: skip
OWN_FIELDS = {
    "notice": {"description", "severity", "linkUrl"},
    "surfaceConditions": {"conditions"},
    "snowReport": {
        "baseDepth", "twentyFourHours", "fourtyEightHours", "sevenDays", "seasonTotal",
        "lastSnowAmount", "upperElevationDepth", "lastSnowDate", "lastSnowMakingDate",
        "lastSnowTime",
    },
}  # fmt: skip
NOTICE = {"type": "notice", "description": "Lift 2 closed for wind."}
SURFACE = {"type": "surfaceConditions", "allTrails": True}


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def updates_url(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}/updates"


def parse(value: str) -> datetime:
    return datetime.fromisoformat(value)


def compiles(system) -> int:
    return CompileRequest.objects.filter(trail_system=system).count()


class TestList:
    def test_active_updates_soonest_expiring_first(self, system, manager):
        now = timezone.now()
        later = UpdateFactory(trail_system=system, expiration_date=now + timedelta(hours=5))
        sooner = UpdateFactory(trail_system=system, expiration_date=now + timedelta(hours=1))
        UpdateFactory(trail_system=system, expiration_date=now - timedelta(hours=1))
        UpdateFactory()
        body = manager.get(updates_url(system)).json()
        assert set(body) == {"trailSystemId", "updates"}
        assert body["trailSystemId"] == system.pk
        assert [u["id"] for u in body["updates"]] == [sooner.pk, later.pk]
        assert set(body["updates"][0]) == COMMON_FIELDS | OWN_FIELDS["notice"]

    def test_include_expired_lists_history_latest_expiry_first(self, system, manager):
        now = timezone.now()
        active = UpdateFactory(trail_system=system, expiration_date=now + timedelta(hours=1))
        expired = UpdateFactory(trail_system=system, expiration_date=now - timedelta(days=1))
        body = manager.get(updates_url(system) + "?includeExpired=true").json()
        assert [u["id"] for u in body["updates"]] == [active.pk, expired.pk]

    @pytest.mark.parametrize("query", ["", "?includeExpired=true"])
    def test_at_most_100(self, system, manager, query):
        soon = timezone.now() + timedelta(hours=1)
        Update.objects.bulk_create(
            Update(trail_system=system, type="notice", expiration_date=soon + timedelta(minutes=n))
            for n in range(101)
        )
        assert len(manager.get(updates_url(system) + query).json()["updates"]) == 100


def test_get_one_update_even_when_expired(system, manager):
    update = UpdateFactory(trail_system=system, expiration_date=timezone.now() - timedelta(days=1))
    body = manager.get(f"/api/v1/updates/{update.pk}").json()
    assert set(body) == COMMON_FIELDS | OWN_FIELDS["notice"]
    assert body["expirationDate"] == iso_ms(update.expiration_date)


class TestCreate:
    def test_notice_with_defaults(self, system, manager):
        before = timezone.now()
        response = manager.post(updates_url(system), NOTICE, format="json")
        assert response.status_code == 201
        body = response.json()
        assert set(body) == COMMON_FIELDS | OWN_FIELDS["notice"]
        assert body["type"] == "notice"
        assert (body["label"], body["attachToTrails"], body["source"]) == ("Notice", False, "api")
        assert (body["severity"], body["linkUrl"], body["notify"]) == ("info", "", False)
        assert (body["relevantTrails"], body["trailIds"]) == ([], [])
        assert body["createdBy"] == body["updatedBy"] == system.owner.pk
        expiry = parse(body["expirationDate"])
        assert before + timedelta(hours=24) <= expiry <= timezone.now() + timedelta(hours=24)
        assert compiles(system) == 1

    def test_label_in_the_systems_language(self, client_for):
        system = TrailSystemFactory(language="fr")
        body = client_for(system.owner).post(updates_url(system), NOTICE, format="json").json()
        assert body["label"] == "Avis"

    def test_notice_related_to_trails_touches_them(self, system, manager):
        trail = TrailFactory(trail_system=system, categories=["night"], difficulty="square")
        TrailActivityFactory(trail=trail, value="hiking", status="Caution")
        untouched = TrailFactory(trail_system=system)
        stamp = Trail.objects.get(pk=untouched.pk).updated_on
        body = manager.post(
            updates_url(system), {**NOTICE, "trailIds": [trail.pk]}, format="json"
        ).json()
        assert body["trailIds"] == [trail.pk]
        assert body["relevantTrails"] == [
            {
                "trailId": trail.pk,
                "name": trail.name,
                "status": "Open",
                "difficulty": "square",
                "activities": [
                    {
                        "value": "hiking",
                        "label": "Hiking",
                        "iconClass": "icon-hiking",
                        "status": "Caution",
                    }
                ],
                "categories": ["night"],
            }
        ]
        assert Trail.objects.get(pk=trail.pk).updated_on > stamp
        assert Trail.objects.get(pk=untouched.pk).updated_on == stamp

    def test_surface_conditions_on_all_trails(self, system, manager):
        trails = TrailFactory.create_batch(2, trail_system=system)
        body = manager.post(
            updates_url(system),
            {"type": "surfaceConditions", "conditions": ["groomed", "icy"], "allTrails": True},
            format="json",
        ).json()
        assert set(body) == COMMON_FIELDS | OWN_FIELDS["surfaceConditions"]
        assert body["attachToTrails"] is True
        assert body["conditions"] == ["groomed", "icy"]
        assert sorted(body["trailIds"]) == sorted(t.pk for t in trails)

    def test_snow_report_fields_and_dates(self, system, manager):
        trail = TrailFactory(trail_system=system)
        sent = {
            "type": "snowReport",
            "baseDepth": 40,
            "twentyFourHours": 2.5,
            "fourtyEightHours": 5,
            "sevenDays": 12,
            "seasonTotal": 120,
            "lastSnowAmount": 2.5,
            "upperElevationDepth": 80,
            "lastSnowDate": "Wed, 02 Jan 2030 10:00:00 GMT",
            "lastSnowMakingDate": "2029-12-30",
            "lastSnowTime": "23:59",
            "trailIds": [trail.pk],
        }
        body = manager.post(updates_url(system), sent, format="json").json()
        assert set(body) == COMMON_FIELDS | OWN_FIELDS["snowReport"]
        assert body["baseDepth"] == 40
        assert body["fourtyEightHours"] == 5
        assert body["lastSnowDate"] == "2030-01-02T10:00:00.000Z"
        assert body["lastSnowMakingDate"] == "2029-12-30T00:00:00.000Z"
        assert body["lastSnowTime"] == "23:59"
        assert body["trailIds"] == []  # ignored for snow reports

    @pytest.mark.parametrize(
        ("body", "code"),
        [
            ({"description": "No type"}, "missing_field"),
            ({"type": "grooming"}, "invalid_field"),
            ({"type": "notice"}, "missing_field"),
            ({"type": "notice", "description": ""}, "invalid_field"),
            ({**NOTICE, "severity": "critical"}, "invalid_field"),
            ({**NOTICE, "notify": "yes"}, "invalid_field"),
            (SURFACE, "missing_field"),
            ({**SURFACE, "conditions": []}, "invalid_field"),
            ({**SURFACE, "conditions": ["slushy"]}, "invalid_field"),
            ({**SURFACE, "conditions": ["icy"], "allTrails": 1}, "invalid_field"),
            ({"type": "surfaceConditions", "conditions": ["icy"]}, "missing_field"),
            ({"type": "snowReport", "baseDepth": "deep"}, "invalid_field"),
            ({"type": "snowReport", "baseDepth": -1}, "invalid_field"),
            ({"type": "snowReport", "lastSnowTime": "24:00"}, "invalid_field"),
            ({"type": "snowReport", "lastSnowTime": "7:30"}, "invalid_field"),
            ({"type": "snowReport", "lastSnowDate": "yesterday-ish"}, "invalid_date"),
        ],
    )  # fmt: skip
    def test_body_errors(self, system, manager, body, code):
        assert error(manager.post(updates_url(system), body, format="json")) == (400, code)
        assert not Update.objects.exists()

    @pytest.mark.parametrize("kind", ["unknown", "other system", "trashed"])
    def test_trail_ids_must_be_live_trails_of_the_system(self, system, manager, kind):
        stray = {
            "unknown": lambda: "no-such-trail",
            "other system": lambda: TrailFactory().pk,
            "trashed": lambda: TrailFactory(trail_system=system, trashed_on=timezone.now()).pk,
        }[kind]()
        body = {"type": "surfaceConditions", "conditions": ["icy"], "trailIds": [stray]}
        response = manager.post(updates_url(system), body, format="json")
        assert error(response) == (404, "trail_not_found")

    def test_notify_hands_the_update_to_notifications_after_commit(
        self, system, manager, django_capture_on_commit_callbacks
    ):
        with django_capture_on_commit_callbacks() as quiet:
            manager.post(updates_url(system), NOTICE, format="json")
        with django_capture_on_commit_callbacks() as loud:
            response = manager.post(updates_url(system), {**NOTICE, "notify": True}, format="json")
        assert response.json()["notify"] is True
        assert len(loud) == len(quiet) + 1


class TestExpiry:
    @pytest.mark.parametrize(
        ("hours", "status"), [(8760, 201), (0.01, 201), (8761, 400), (0, 400), (-1, 400)]
    )
    def test_expires_in_hours_boundaries(self, system, manager, hours, status):
        response = manager.post(
            updates_url(system), {**NOTICE, "expiresInHours": hours}, format="json"
        )
        assert response.status_code == status
        if status == 400:
            assert error(response) == (400, "invalid_field")
        else:
            expiry = parse(response.json()["expirationDate"])
            assert abs(expiry - timezone.now() - timedelta(hours=hours)) < timedelta(seconds=10)

    @pytest.mark.parametrize(
        ("sent", "expected"),
        [
            ("Jan 2, 2099 10:00 GMT", "2099-01-02T10:00:00.000Z"),
            ("2099-01-02T10:00:00+02:00", "2099-01-02T08:00:00.000Z"),
            ("2099-01-02", "2099-01-02T00:00:00.000Z"),
            ("2099-01-02T10:00", "2099-01-02T10:00:00.000Z"),  # zone-less: UTC
        ],
    )
    def test_expiration_date_in_javascript_forms(self, system, manager, sent, expected):
        body = {**NOTICE, "expirationDate": sent}
        assert (
            manager.post(updates_url(system), body, format="json").json()["expirationDate"]
            == expected
        )

    @pytest.mark.parametrize(
        ("sent", "code"),
        [
            ("2000-01-01T00:00:00Z", "invalid_field"),
            ("the day after tomorrow", "invalid_date"),
            (20990102, "invalid_field"),
        ],
    )
    def test_expiration_date_must_be_a_future_date(self, system, manager, sent, code):
        body = {**NOTICE, "expirationDate": sent}
        assert error(manager.post(updates_url(system), body, format="json")) == (400, code)

    def test_only_one_expiry_field(self, system, manager):
        body = {**NOTICE, "expirationDate": "2099-01-01", "expiresInHours": 2}
        assert error(manager.post(updates_url(system), body, format="json")) == (
            400,
            "invalid_field",
        )


class TestChange:
    def test_changes_only_the_fields_sent(self, system, manager):
        update = UpdateFactory(trail_system=system, link_url="https://a.example")
        response = manager.patch(
            f"/api/v1/updates/{update.pk}",
            {"severity": "danger", "type": "snowReport"},
            format="json",
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body) == COMMON_FIELDS | OWN_FIELDS["notice"]
        assert (body["type"], body["severity"], body["linkUrl"]) == (
            "notice",
            "danger",
            "https://a.example",
        )
        assert body["updatedBy"] == system.owner.pk
        assert compiles(system) == 1

    def test_a_new_expiry_counts_from_now(self, system, manager):
        update = UpdateFactory(
            trail_system=system, expiration_date=timezone.now() + timedelta(days=9)
        )
        body = manager.patch(
            f"/api/v1/updates/{update.pk}", {"expiresInHours": 1}, format="json"
        ).json()
        expiry = parse(body["expirationDate"])
        assert abs(expiry - timezone.now() - timedelta(hours=1)) < timedelta(seconds=10)
        body = manager.patch(
            f"/api/v1/updates/{update.pk}",
            {"expirationDate": "2099-06-01T12:00:00Z"},
            format="json",
        ).json()
        assert body["expirationDate"] == "2099-06-01T12:00:00.000Z"

    def test_trail_ids_replace_the_trail_list(self, system, manager):
        old, new = TrailFactory.create_batch(2, trail_system=system)
        update = UpdateFactory(trail_system=system, type="surfaceConditions", conditions=["icy"])
        update.trails.set([old])
        path = f"/api/v1/updates/{update.pk}"
        assert manager.patch(path, {"trailIds": [new.pk]}, format="json").json()["trailIds"] == [
            new.pk
        ]
        every = manager.patch(path, {"allTrails": True}, format="json").json()["trailIds"]
        assert sorted(every) == sorted([old.pk, new.pk])

    def test_changing_notify_sends_nothing(
        self, system, manager, django_capture_on_commit_callbacks
    ):
        update = UpdateFactory(trail_system=system)
        other = UpdateFactory(trail_system=system)
        with django_capture_on_commit_callbacks() as quiet:
            manager.patch(f"/api/v1/updates/{other.pk}", {"severity": "warning"}, format="json")
        with django_capture_on_commit_callbacks() as flipped:
            body = manager.patch(
                f"/api/v1/updates/{update.pk}", {"notify": True}, format="json"
            ).json()
        assert body["notify"] is True
        assert len(flipped) == len(quiet)

    @pytest.mark.parametrize(
        "body", [{}, {"type": "snowReport"}, {"conditions": ["icy"], "baseDepth": 3}]
    )
    def test_no_editable_field_is_no_changes(self, system, manager, body):
        update = UpdateFactory(trail_system=system)
        assert error(manager.patch(f"/api/v1/updates/{update.pk}", body, format="json")) == (
            400,
            "no_changes",
        )

    def test_a_type_that_cannot_be_edited(self, system, manager):
        update = UpdateFactory(trail_system=system, type="grooming")
        response = manager.patch(f"/api/v1/updates/{update.pk}", {"notify": False}, format="json")
        assert error(response) == (400, "unknown_type")

    @pytest.mark.parametrize(("hours", "status"), [(8760, 200), (8761, 400), (0, 400)])
    def test_expires_in_hours_boundaries(self, system, manager, hours, status):
        update = UpdateFactory(trail_system=system)
        response = manager.patch(
            f"/api/v1/updates/{update.pk}", {"expiresInHours": hours}, format="json"
        )
        assert response.status_code == status


def test_delete_removes_at_once(system, manager):
    update = UpdateFactory(trail_system=system)
    response = manager.delete(f"/api/v1/updates/{update.pk}")
    assert response.json() == {"ok": True, "id": update.pk, "deleted": True}
    assert not Update.objects.filter(pk=update.pk).exists()
    assert manager.get(f"/api/v1/updates/{update.pk}").status_code == 404
    assert compiles(system) == 1


def test_expired_updates_are_deleted_too(system, manager):
    update = UpdateFactory(trail_system=system, expiration_date=datetime(2020, 1, 1, tzinfo=UTC))
    assert manager.delete(f"/api/v1/updates/{update.pk}").status_code == 200
