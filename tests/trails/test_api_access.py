"""Section 7 rows every management endpoint of trail systems, trails, points and updates
shares: credentials, scope, the path's object (404, also when trashed) and the caller's role,
checked in the documented order."""

import pytest
from django.utils import timezone

from tests.factories import (
    MembershipFactory,
    PointFactory,
    TrailFactory,
    UpdateFactory,
    UserFactory,
    line,
)
from trails.models import Point, Trail

pytestmark = pytest.mark.django_db

POINT = {"name": "P", "markerClass": "bar", "lat": 1, "lng": 2}
# (method, path, body); {system}, {trail}, {point}, {update} are filled in per test.
ENDPOINTS = [
    ("get", "/api/v1/trail-systems/{system}", None),
    ("patch", "/api/v1/trail-systems/{system}", {"name": "Renamed"}),
    ("post", "/api/v1/trail-systems/{system}/compile", None),
    ("get", "/api/v1/trail-systems/{system}/weather", None),
    ("get", "/api/v1/trail-systems/{system}/trails", None),
    ("post", "/api/v1/trail-systems/{system}/trails", {"name": "New", "geometry": line()}),
    ("post", "/api/v1/trail-systems/{system}/trails/status", {"status": "Open", "all": True}),
    ("get", "/api/v1/trails/{trail}", None),
    ("patch", "/api/v1/trails/{trail}", {"status": "Caution"}),
    ("delete", "/api/v1/trails/{trail}", None),
    ("get", "/api/v1/trail-systems/{system}/points", None),
    ("post", "/api/v1/trail-systems/{system}/points", POINT),
    ("get", "/api/v1/points/{point}", None),
    ("patch", "/api/v1/points/{point}", {"status": "Closed"}),
    ("delete", "/api/v1/points/{point}", None),
    ("get", "/api/v1/trails/{trail}/history", None),
    ("get", "/api/v1/points/{point}/history", None),
    ("get", "/api/v1/trail-systems/{system}/updates", None),
    ("post", "/api/v1/trail-systems/{system}/updates", {"type": "notice", "description": "Hi"}),
    ("get", "/api/v1/updates/{update}", None),
    ("patch", "/api/v1/updates/{update}", {"severity": "danger"}),
    ("delete", "/api/v1/updates/{update}", None),
]  # fmt: skip
WRITES = [e for e in ENDPOINTS if e[0] != "get"]
ADMIN_ONLY = {("patch", "/api/v1/trail-systems/{system}")}
NOT_FOUND = {
    "system": "trail_system_not_found",
    "trail": "trail_not_found",
    "point": "point_not_found",
    "update": "update_not_found",
}


@pytest.fixture
def rows(system):
    return {
        "system": system.pk,
        "trail": TrailFactory(trail_system=system).pk,
        "point": PointFactory(trail_system=system).pk,
        "update": UpdateFactory(trail_system=system).pk,
    }


def call(client, method, path, body, ids):
    return getattr(client, method)(path.format(**ids), body, format="json")


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def path_object(path: str) -> str:
    return next(name for name in ("trail", "point", "update", "system") if f"{{{name}}}" in path)


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_without_credentials_is_401(api, rows, method, path, body):
    assert error(call(api, method, path, body, rows)) == (401, "missing_credentials")


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_read_only_key_cannot_write(system, key_client_for, rows, method, path, body):
    client = key_client_for(system.owner, scopes=("read",))
    assert error(call(client, method, path, body, rows)) == (403, "insufficient_scope")


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_key_restricted_to_another_system(system, key_client_for, rows, method, path, body):
    client = key_client_for(system.owner, trail_system_ids=["elsewhere"])
    assert error(call(client, method, path, body, rows)) == (403, "key_restricted")


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_stranger_is_forbidden(client_for, rows, method, path, body):
    client = client_for(UserFactory())
    assert error(call(client, method, path, body, rows)) == (403, "forbidden")


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_trustee_may_do_all_but_change_the_system(system, client_for, rows, method, path, body):
    trustee = MembershipFactory(trail_system=system).user
    response = call(client_for(trustee), method, path, body, rows)
    if (method, path) in ADMIN_ONLY:
        assert error(response) == (403, "admin_required")
    else:
        assert response.status_code in (200, 201, 202)


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_unknown_id_is_404_before_any_role_check(client_for, rows, method, path, body):
    name = path_object(path)
    ids = {**rows, name: "no-such-id"}
    response = call(client_for(UserFactory()), method, path, body, ids)
    assert error(response) == (404, NOT_FOUND[name])


@pytest.mark.parametrize(
    ("method", "path", "body"), [e for e in ENDPOINTS if path_object(e[1]) in ("trail", "point")]
)
def test_trashed_rows_are_404(manager, rows, method, path, body):
    now = timezone.now()
    Trail.objects.filter(pk=rows["trail"]).update(trashed_on=now)
    Point.objects.filter(pk=rows["point"]).update(trashed_on=now)
    name = path_object(path)
    assert error(call(manager, method, path, body, rows)) == (404, NOT_FOUND[name])


def test_super_admin_is_administrator_everywhere(system, client_for):
    boss = UserFactory(is_super_admin=True)
    response = client_for(boss).patch(
        f"/api/v1/trail-systems/{system.pk}", {"hideName": True}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["role"] == "Administrator"


def test_invalid_json_body(manager, system):
    response = manager.generic(
        "POST",
        f"/api/v1/trail-systems/{system.pk}/points",
        "{not json",
        content_type="application/json",
    )
    assert error(response) == (400, "invalid_json")


@pytest.mark.parametrize(("method", "path", "_"), [e for e in WRITES if e[2] is not None])
@pytest.mark.parametrize("body", [[], "text", 3])
def test_a_body_that_is_not_an_object_is_invalid_field(manager, rows, method, path, _, body):
    assert error(call(manager, method, path, body, rows)) == (400, "invalid_field")
