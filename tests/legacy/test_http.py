"""The legacy rules every route shares: 500 with an empty body, origins, conditional GET."""

import logging

import pytest
from django.utils import timezone
from django.utils.http import http_date
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from tests.legacy.conftest import ALLOWED_ORIGIN
from trails.models import Trail, TrailActivity, TrailSystem

pytestmark = pytest.mark.django_db

ID_ROUTES = ["ts", "trails", "trail", "point", "weather"]


def route_paths(system) -> list[str]:
    trail = system.fixture_trails["open"]
    point = system.fixture_points["parking"]
    return [
        "/legacy/trail-systems",
        f"/legacy/ts/{system.id}",
        f"/legacy/trails/{system.id}",
        f"/legacy/trail/{trail.id}",
        f"/legacy/point/{point.id}",
        f"/legacy/weather/{system.id}",
    ]


def assert_failed(response) -> None:
    assert response.status_code == 500
    assert response.content == b""


@pytest.mark.parametrize("route", ID_ROUTES)
@pytest.mark.parametrize("bad_id", ["doesNotExist0000000", "x" * 300, "a%00b", "%E2%9C%93.json"])
def test_unknown_or_malformed_ids_answer_500_with_an_empty_body(
    client, caplog, system, route, bad_id
):
    with caplog.at_level(logging.WARNING, logger="legacy.http"):
        assert_failed(client.get(f"/legacy/{route}/{bad_id}"))

    # A miss or junk from a client is not a server fault: a warning, no traceback.
    assert [r.levelname for r in caplog.records] == ["WARNING"]


def test_trashed_trails_and_points_answer_500(client, system):
    assert_failed(client.get(f"/legacy/trail/{system.fixture_trails['trashed'].id}"))
    assert_failed(client.get(f"/legacy/point/{system.fixture_points['trashed'].id}"))


def test_ids_of_the_wrong_kind_answer_500(client, system):
    assert_failed(client.get(f"/legacy/trail/{system.id}"))
    assert_failed(client.get(f"/legacy/ts/{system.fixture_trails['open'].id}"))


def test_weather_without_a_snapshot_answers_500(client):
    assert_failed(client.get(f"/legacy/weather/{TrailSystemFactory().id}"))


@pytest.mark.parametrize(
    "path", ["/legacy/", "/legacy/points/abc", "/legacy/ts", "/legacy/ts/abc/extra", "/legacy/x/"]
)
def test_unknown_routes_answer_500_with_an_empty_body(client, path):
    assert_failed(client.get(path))
    assert_failed(client.options(path, headers={"Origin": ALLOWED_ORIGIN}))


def test_writes_answer_500_with_an_empty_body_on_every_route(client, system):
    for path in route_paths(system):
        assert_failed(client.post(path, {"name": "x"}))
        assert_failed(client.delete(path))


def test_an_unexpected_failure_is_logged_and_answers_500_with_an_empty_body(client, caplog, system):
    system.activity_totals = "not a list of activities"
    system.save()

    with caplog.at_level(logging.ERROR, logger="legacy.http"):
        assert_failed(client.get(f"/legacy/ts/{system.id}"))

    [record] = caplog.records
    assert record.name == "legacy.http"
    assert record.exc_info is not None


def test_an_unknown_id_is_logged(client, caplog):
    with caplog.at_level(logging.WARNING, logger="legacy.http"):
        client.get("/legacy/ts/nope")
    assert "nope" in caplog.text


def test_calls_without_origin_work_and_carry_no_cors_header(client, system):
    for path in route_paths(system):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "Access-Control-Allow-Origin" not in response or path.endswith("trail-systems")


def test_an_allowed_origin_is_answered_with_its_own_origin(client, system):
    for path in route_paths(system)[1:]:
        response = client.get(path, headers={"Origin": ALLOWED_ORIGIN})
        assert response.status_code == 200
        assert response["Access-Control-Allow-Origin"] == ALLOWED_ORIGIN
        assert "Origin" in response["Vary"]
        assert "ETag" in response["Access-Control-Expose-Headers"]


def test_another_origin_gets_no_cors_header(client, system):
    for path in route_paths(system)[1:]:
        response = client.get(path, headers={"Origin": "https://evil.example.com"})
        assert "Access-Control-Allow-Origin" not in response
        assert "Origin" in response["Vary"]


def test_failures_carry_the_cors_header_for_allowed_origins_only(client):
    allowed = client.get("/legacy/ts/nope", headers={"Origin": ALLOWED_ORIGIN})
    other = client.get("/legacy/ts/nope", headers={"Origin": "https://evil.example.com"})

    assert_failed(allowed)
    assert allowed["Access-Control-Allow-Origin"] == ALLOWED_ORIGIN
    assert "Access-Control-Allow-Origin" not in other


def test_preflight_follows_the_allowlist(client, system):
    preflight = {"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-app"}

    allowed = client.options(
        f"/legacy/trails/{system.id}", headers={"Origin": ALLOWED_ORIGIN, **preflight}
    )
    other = client.options(
        f"/legacy/trails/{system.id}", headers={"Origin": "https://evil.example.com", **preflight}
    )

    assert allowed.status_code == 204
    assert allowed["Access-Control-Allow-Origin"] == ALLOWED_ORIGIN
    assert "GET" in allowed["Access-Control-Allow-Methods"]
    assert allowed["Access-Control-Allow-Headers"] == "x-app"
    assert "Access-Control-Allow-Origin" not in other


def test_the_all_systems_route_follows_the_allowlist_like_every_legacy_route(client, system):
    other = client.get("/legacy/trail-systems", headers={"Origin": "https://any.example.com"})
    allowed = client.get("/legacy/trail-systems", headers={"Origin": ALLOWED_ORIGIN})

    assert other.status_code == allowed.status_code == 200
    assert "Access-Control-Allow-Origin" not in other
    assert allowed["Access-Control-Allow-Origin"] == ALLOWED_ORIGIN
    assert "Origin" in allowed["Vary"]


@pytest.mark.parametrize("path", ["/legacy/ts/%0A", "/legacy/trail/a%00b", "/legacy/%0A"])
def test_a_control_character_in_a_legacy_path_is_the_empty_500(client, path):
    response = client.get(path)

    assert_failed(response)


@pytest.mark.parametrize("route", ["trails", "ts", "weather"])
def test_a_repeated_conditional_request_gets_304(client, system, route):
    first = client.get(f"/legacy/{route}/{system.id}")

    again = client.get(f"/legacy/{route}/{system.id}", headers={"If-None-Match": first["ETag"]})

    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]


def test_a_poller_sees_a_change_after_a_304(client, system):
    path = f"/legacy/trails/{system.id}"
    first = client.get(path)
    trail = system.fixture_trails["open"]
    activity = TrailActivityFactory(trail=trail, value="hiking")

    changed = client.get(path, headers={"If-None-Match": first["ETag"]})

    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    activity.delete()
    assert client.get(path, headers={"If-None-Match": first["ETag"]}).status_code == 304


def test_head_answers_the_headers_of_get_without_a_body(client, system):
    path = f"/legacy/trails/{system.id}"
    get = client.get(path)

    head = client.head(path)

    assert head.status_code == 200
    assert head.content == b""
    assert head["ETag"] == get["ETag"]
    assert head["Content-Length"] == str(len(get.content))


def test_last_modified_is_the_latest_trail_change_and_answers_if_modified_since(client, system):
    path = f"/legacy/trails/{system.id}"
    newest = max(t.updated_on for t in system.fixture_trails.values() if not t.trashed_on)

    first = client.get(path)

    assert first["Last-Modified"] == http_date(newest.timestamp())
    since = client.get(path, headers={"If-Modified-Since": first["Last-Modified"]})
    assert since.status_code == 304


def test_trails_of_a_system_take_the_same_number_of_queries_for_any_size(
    client, django_assert_num_queries
):
    small, large = TrailSystemFactory(), TrailSystemFactory()
    for i in range(2):
        TrailActivityFactory(trail=TrailFactory(trail_system=small, order=i))
    for i in range(40):
        TrailActivityFactory(trail=TrailFactory(trail_system=large, order=i))

    for system in (small, large):
        # Version check, then system, trails and activities; unchanged data: the check alone.
        with django_assert_num_queries(4):
            assert client.get(f"/legacy/trails/{system.id}").status_code == 200
        with django_assert_num_queries(1):
            assert client.get(f"/legacy/trails/{system.id}").status_code == 200


@pytest.mark.parametrize("route,queries", [("ts", 2), ("weather", 1)])
def test_system_routes_run_a_fixed_number_of_queries(
    client, system, django_assert_num_queries, route, queries
):
    with django_assert_num_queries(queries):
        client.get(f"/legacy/{route}/{system.id}")


def test_any_write_to_a_trail_or_activity_shows_on_the_next_poll(client, system):
    path = f"/legacy/trails/{system.id}"
    meadow = system.fixture_trails["open"]
    client.get(path)

    # Bulk writes bypass save() and updatedOn; the next answer must still show them.
    Trail.objects.filter(pk=meadow.id).update(status="Closed")
    TrailActivity.objects.filter(trail__trail_system=system).update(status="Closed")
    trails = {t["name"]: t for t in client.get(path).json()}

    assert trails["Meadow"]["status"] == "Closed"
    assert {a["status"] for a in trails["Ridge"]["activities"]} == {"Closed"}


def test_a_trashed_trail_leaves_the_list_on_the_next_poll(client, system):
    path = f"/legacy/trails/{system.id}"
    client.get(path)

    Trail.objects.filter(pk=system.fixture_trails["open"].id).update(trashed_on=timezone.now())

    assert "Meadow" not in {t["name"] for t in client.get(path).json()}


def test_a_recompile_shows_on_the_next_poll_of_the_system(client, system):
    path = f"/legacy/ts/{system.id}"
    client.get(path)

    TrailSystem.objects.filter(pk=system.id).update(open_trails=7)

    assert client.get(path).json()["openTrails"] == 7


def test_trail_and_point_routes_run_a_fixed_number_of_queries(
    client, system, django_assert_num_queries
):
    with django_assert_num_queries(2):
        client.get(f"/legacy/trail/{system.fixture_trails['caution'].id}")
    with django_assert_num_queries(1):
        client.get(f"/legacy/point/{system.fixture_points['parking'].id}")


def test_a_trail_created_moved_or_deleted_shows_on_the_next_poll_of_both_systems(client, system):
    other = TrailSystemFactory()
    path, other_path = f"/legacy/trails/{system.id}", f"/legacy/trails/{other.id}"
    client.get(path), client.get(other_path)

    created = TrailFactory(trail_system=system, name="Newcomer")
    assert "Newcomer" in {t["name"] for t in client.get(path).json()}

    Trail.objects.filter(pk=created.pk).update(trail_system=other)
    assert "Newcomer" not in {t["name"] for t in client.get(path).json()}
    assert [t["name"] for t in client.get(other_path).json()] == ["Newcomer"]

    Trail.objects.filter(pk=created.pk).delete()
    assert client.get(other_path).json() == []


def test_an_answer_carries_its_length_and_the_security_headers_and_no_page_headers(client, system):
    """Legacy routes are answered before the page middleware (sessions, locale, framing,
    CSP): an embed gets the body's length and the security headers, and nothing of a page."""
    response = client.get(f"/legacy/trails/{system.id}")

    assert response["Content-Length"] == str(len(response.content))
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Request-ID"]
    assert "Accept-Language" not in response.get("Vary", "")
    assert not response.cookies
    assert client.get("/legacy/nope")["Content-Length"] == "0"


def test_legacy_answers_are_counted_per_route_in_the_metrics(client, system):
    def served(status: str) -> float:
        page = client.get("/metrics").content.decode()
        for family in text_string_to_metric_families(page):
            for sample in family.samples:
                if (
                    sample.name == "django_http_responses_total_by_status_view_method_total"
                    and sample.labels["view"] == "legacy.views.trail_list"
                    and sample.labels["method"] == "GET"
                    and sample.labels["status"] == status
                ):
                    return sample.value
        return 0.0

    before = served("200"), served("500")

    client.get(f"/legacy/trails/{system.id}")
    client.get(f"/legacy/trails/{system.id}")
    client.get("/legacy/trails/doesNotExist0000000")

    assert (served("200"), served("500")) == (before[0] + 2, before[1] + 1)
