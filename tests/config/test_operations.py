"""What load balancers, scrapers and log pipelines rely on: /healthz, /readyz, /metrics and
one JSON log line per request with its request id."""

import io
import json
import logging

import pytest
from django.core.cache import cache
from prometheus_client import REGISTRY

from tests.factories import SubscriberFactory, TrailFactory, UpdateFactory
from updates.metrics import FINISHED_CACHE_KEY
from updates.notifications import recipients

pytestmark = pytest.mark.django_db


def test_healthz_answers_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_readyz_reports_each_dependency_reachable(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready" and body["failed"] == []
    assert {name: check["ok"] for name, check in body["checks"].items()} == {
        "database": True,
        "broker": True,
        "storage": True,
    }


def test_readyz_names_the_storage_that_cannot_be_reached(client, settings, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    settings.MEDIA_ROOT = blocker / "media"

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["failed"] == ["storage"]


def test_readyz_names_the_broker_that_cannot_be_reached(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["failed"] == ["broker"]
    assert response.json()["checks"]["database"]["ok"] is True


def metric(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics_show_compile_latency_pending_compiles_and_deliveries_by_state(
    client, manager, system, django_capture_on_commit_callbacks
):
    cache.delete(FINISHED_CACHE_KEY)
    trail = TrailFactory(trail_system=system)
    SubscriberFactory(trail_system=system, email="a@example.test", phone="")
    update = UpdateFactory(trail_system=system, notify=True)
    recipients.record_deliveries(update)
    compiles_before = metric("trails_compile_seconds_count")

    with django_capture_on_commit_callbacks(execute=True):
        response = manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"})
    assert response.status_code == 200

    page = client.get("/metrics")
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/plain")
    text = page.content.decode()
    assert metric("trails_compile_seconds_count") == compiles_before + 1
    assert "trails_compile_seconds_bucket{le=" in text
    assert "trails_publish_delay_seconds_bucket{le=" in text
    assert "trails_pending_compile_requests 0.0" in text
    assert 'trails_notification_deliveries{channel="email",state="pending"} 1.0' in text
    assert 'trails_notification_deliveries{channel="sms",state="sent"} 0.0' in text
    assert "django_http_requests_total_by_method_total" in text


def test_metrics_count_unfinished_deliveries_at_every_scrape_and_finished_ones_from_the_cache(
    client, system
):
    cache.delete(FINISHED_CACHE_KEY)
    SubscriberFactory(trail_system=system, email="a@example.test", phone="")
    update = UpdateFactory(trail_system=system, notify=True)
    recipients.record_deliveries(update)
    client.get("/metrics")

    update.deliveries.update(state="sent")
    text = client.get("/metrics").content.decode()
    assert 'trails_notification_deliveries{channel="email",state="pending"} 0.0' in text
    assert 'trails_notification_deliveries{channel="email",state="sent"} 0.0' in text

    cache.delete(FINISHED_CACHE_KEY)  # DELIVERY_METRICS_SECONDS later
    text = client.get("/metrics").content.decode()
    assert 'trails_notification_deliveries{channel="email",state="sent"} 1.0' in text


def test_metrics_count_a_compile_request_that_waits(client, system):
    from core.compiles import request_compile

    request_compile(system.pk, reason="test")  # recorded; its task runs after the commit

    assert "trails_pending_compile_requests 1.0" in client.get("/metrics").content.decode()


def test_metrics_refuse_a_client_off_the_host(client):
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 403


def test_metrics_answer_the_bearer_token_when_one_is_set(client, settings):
    settings.METRICS_TOKEN = "scrape-secret"

    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    answered = client.get(
        "/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret", REMOTE_ADDR="203.0.113.9"
    )
    assert answered.status_code == 200


@pytest.fixture
def log_lines():
    """The JSON lines the console handler writes, as dicts."""
    handler = next(
        h
        for h in logging.getLogger().handlers
        if getattr(h, "formatter", None) and "JsonFormatter" in type(h.formatter).__name__
    )
    buffer = io.StringIO()
    previous = handler.setStream(buffer)
    yield lambda: [json.loads(line) for line in buffer.getvalue().splitlines()]
    handler.setStream(previous)


def test_each_request_logs_one_json_line_with_its_request_id(client, log_lines):
    response = client.get("/api/v1/trail-systems/nope", HTTP_X_REQUEST_ID="lb-1234.abc")

    assert response["X-Request-ID"] == "lb-1234.abc"
    lines = [line for line in log_lines() if line["logger"] == "trails.request"]
    assert len(lines) == 1
    assert lines[0]["request_id"] == "lb-1234.abc"
    assert lines[0]["status"] == 401
    assert lines[0]["method"] == "GET" and lines[0]["path"] == "/api/v1/trail-systems/nope"
    assert {"time", "level", "duration_ms"} <= lines[0].keys()
    # Every other line of that request carries the same id.
    assert {line["request_id"] for line in log_lines()} == {"lb-1234.abc"}


@pytest.mark.parametrize("sent", ["", "has space", "x" * 129, "line\nbreak", "<script>"])
def test_a_request_id_of_another_shape_is_replaced(client, log_lines, sent):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=sent)

    generated = response["X-Request-ID"]
    assert generated != sent and len(generated) == 32
    assert [line["request_id"] for line in log_lines()] == [generated]


def test_the_log_line_hides_an_unsubscribe_token(client, log_lines):
    client.get("/unsubscribe/secret-token-value")

    logged = " ".join(json.dumps(line) for line in log_lines())
    assert "secret-token-value" not in logged
