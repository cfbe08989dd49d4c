"""Prometheus metrics at /metrics.

Request metrics come from django-prometheus's middleware; the apps add their own with
prometheus_client (publishing: compile latency and pending compiles; updates: deliveries by
state). Figures that live in the database (what is pending, deliveries by state) are read
when the page is scraped, so they are right whichever process or machine did the work.

The page is for the operator's scraper, not the public: it answers a client that sends
``Authorization: Bearer <METRICS_TOKEN>`` when that variable is set, and otherwise only a
client on the loopback interface (a scraper or sidecar on the same host; behind a proxy of
TRUSTED_PROXIES, the client it names, as core.clients reads it).
"""

import hmac
import logging
import os

import prometheus_client
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from config.celery import alert_queue, copies_queue, webhook_queue
from config.celery import app as celery_app
from core.clients import client_address
from core.metrics import database_registry

logger = logging.getLogger(__name__)

LOOPBACK = frozenset({"127.0.0.1", "::1"})
BROKER_TIMEOUT_SECONDS = 2.0


class CeleryQueueLengths(Collector):
    """trails_celery_queue_length{queue}: the tasks waiting in each Celery queue (a list in
    Redis), read at scrape time. Without a broker, or with the broker unreachable, none."""

    name = "trails_celery_queue_length"
    documentation = (
        "Tasks waiting in a Celery queue: the main one, the webhooks', the alerts', the copies'."
    )

    def describe(self):
        return [GaugeMetricFamily(self.name, self.documentation, labels=["queue"])]

    def collect(self):
        family = GaugeMetricFamily(self.name, self.documentation, labels=["queue"])
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            main = celery_app.conf.task_default_queue
            try:
                with celery_app.connection_for_read() as broker:
                    broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
                    client = broker.default_channel.client
                    for queue in (main, webhook_queue(main), alert_queue(main), copies_queue(main)):
                        family.add_metric([queue], client.llen(queue))
            except Exception:
                logger.warning("Celery queue lengths not read", exc_info=True)
        yield family


database_registry.register(CeleryQueueLengths())


def allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())
    return client_address(request) in LOOPBACK


def process_registry() -> prometheus_client.CollectorRegistry:
    """This process's metrics, or every process's when prometheus_client's multiprocess
    mode is on (PROMETHEUS_MULTIPROC_DIR shared by gunicorn's workers and Celery's)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = prometheus_client.CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return prometheus_client.REGISTRY


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        return HttpResponse("Forbidden.\n", status=403, content_type="text/plain")
    body = prometheus_client.generate_latest(process_registry())
    body += prometheus_client.generate_latest(database_registry)
    return HttpResponse(body, content_type=prometheus_client.CONTENT_TYPE_LATEST)
