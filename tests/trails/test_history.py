"""GET /trails/:id/history and /points/:id/history: what was changed, by whom, along which
path, newest first, at most ?limit= entries. (Access rules: tests/apikeys/test_access_matrix.py
and tests/trails/test_api_access.py run these routes with every credential.)"""

import pytest

from core.actors import Actor, Via
from tests.factories import PointFactory, TrailActivityFactory, TrailFactory
from trails import history
from trails.models import StatusChange

pytestmark = pytest.mark.django_db


def patch(client, path: str, body: dict) -> None:
    assert client.patch(path, body, format="json").status_code == 200


def entries(client, path: str, **query) -> list[dict]:
    response = client.get(path, query)
    assert response.status_code == 200, response.content
    return response.json()["history"]


def test_a_trail_history_lists_its_changes_and_its_activities_newest_first(system, manager):
    trail = TrailFactory(trail_system=system, status="Open")
    TrailActivityFactory(trail=trail, value="skiing", status="Open", difficulty="circle")
    path = f"/api/v1/trails/{trail.pk}"
    patch(manager, path, {"status": "Caution"})
    patch(manager, path, {"activities": [{"value": "skiing", "difficulty": "square"}]})
    patch(manager, path, {"name": "Renamed"})  # not a status: not recorded

    response = manager.get(f"{path}/history")

    assert response.status_code == 200
    body = response.json()
    assert body["trailId"] == trail.pk
    uid = system.owner.pk
    assert [{k: v for k, v in entry.items() if k != "at"} for entry in body["history"]] == [
        {"uid": uid, "via": "id-token", "field": "difficulty", "activity": "skiing",
         "from": "circle", "to": "square"},
        {"uid": uid, "via": "id-token", "field": "status", "activity": None,
         "from": "Open", "to": "Caution"},
    ]  # fmt: skip
    first, second = (entry["at"] for entry in body["history"])
    assert first >= second and first.endswith("Z") and len(first) == 24


def test_trash_and_restore_are_recorded(system, manager):
    trail = TrailFactory(trail_system=system)
    assert manager.delete(f"/api/v1/trails/{trail.pk}").status_code == 200
    changes = StatusChange.objects.filter(trail_id=trail.pk)
    assert [(c.field, c.old_value, c.new_value) for c in changes] == [("trashed", False, True)]


def test_a_point_history_records_status_and_wait_time_with_their_types(system, manager):
    point = PointFactory(trail_system=system, status="Open", wait_time=None)
    path = f"/api/v1/points/{point.pk}"
    patch(manager, path, {"waitTime": 15})
    patch(manager, path, {"status": "Closed", "waitTime": 20})

    response = manager.get(f"{path}/history")

    assert response.json()["pointId"] == point.pk
    assert {(e["field"], e["from"], e["to"]) for e in response.json()["history"]} == {
        ("waitTime", None, 15),
        ("waitTime", 15, 20),
        ("status", "Open", "Closed"),
    }
    assert entries(manager, f"{path}/history")[-1]["field"] == "waitTime"


@pytest.fixture
def long_history(system):
    trail = TrailFactory(trail_system=system)
    actor = Actor("uid-groomer", Via.GROOMING)
    statuses = ["Open", "Caution", "Closed"]
    for index in range(120):
        history.save_changes(
            [history.trail_change(trail, actor, "status", statuses[index % 3], str(index))]
        )
    return trail


def test_the_limit_defaults_to_100_and_keeps_the_newest(manager, long_history):
    path = f"/api/v1/trails/{long_history.pk}/history"
    listed = entries(manager, path)
    assert len(listed) == 100
    assert listed[0]["to"] == "119" and listed[-1]["to"] == "20"
    assert [entry["to"] for entry in entries(manager, path, limit=3)] == ["119", "118", "117"]
    assert len(entries(manager, path, limit=500)) == 120
    assert entries(manager, path, limit=1)[0]["via"] == "grooming"


@pytest.mark.parametrize("limit", ["0", "501", "-1", "ten", "2.5"])
def test_a_limit_outside_1_to_500_is_refused(manager, long_history, limit):
    response = manager.get(f"/api/v1/trails/{long_history.pk}/history", {"limit": limit})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_field" and error["message"].startswith("limit:")


def test_history_of_a_trashed_or_unknown_trail_is_404(system, manager):
    trail = TrailFactory(trail_system=system)
    manager.delete(f"/api/v1/trails/{trail.pk}")
    for trail_id in (trail.pk, "no-such-trail"):
        response = manager.get(f"/api/v1/trails/{trail_id}/history")
        assert (response.status_code, response.json()["error"]["code"]) == (
            404,
            "trail_not_found",
        )


def test_history_is_written_only_inside_the_change_transaction(system, transactional_db):
    trail = TrailFactory(trail_system=system)
    with pytest.raises(history.HistoryOutsideTransaction):
        history.record_trail_change(
            trail=trail, actor=Actor("uid", Via.GROOMING), field="status", old="Open", new="Closed"
        )


def test_the_history_routes_are_in_the_root_and_the_schema(api):
    listed = {(e["method"], e["path"]) for e in api.get("/api/v1/").json()["endpoints"]}
    assert {("GET", "/trails/:id/history"), ("GET", "/points/:id/history")} <= listed
    paths = api.get("/api/v1/schema").json()["paths"]
    assert "limit" in {p["name"] for p in paths["/trails/{id}/history"]["get"]["parameters"]}
    assert "/points/{id}/history" in paths
