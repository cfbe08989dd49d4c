"""Probes for load balancers and orchestrators.

/healthz says the process answers (no database, no broker); /readyz says whether it can do
its work: the database, the broker and the published-file storage each answer. A failed
check names the part, never its connection details.
"""

import logging
import os
import time
from collections.abc import Callable

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from config.celery import app as celery_app

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2.0
# A name the storage check asks about; it need not exist.
STORAGE_PROBE_NAME = "readyz-probe"


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def check_broker() -> None:
    """Without a broker (embedded default) tasks run in-process: nothing to reach."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    with celery_app.connection_for_write(settings.CELERY_BROKER_URL) as broker:
        broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)


def check_storage() -> None:
    if isinstance(default_storage, FileSystemStorage):
        os.makedirs(default_storage.location, exist_ok=True)
        if not os.access(default_storage.location, os.W_OK):
            raise PermissionError("published-file directory is not writable")
        return
    default_storage.exists(STORAGE_PROBE_NAME)


CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "broker": check_broker,
    "storage": check_storage,
}


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, dict] = {}
    for name, check in CHECKS.items():
        started = time.monotonic()
        try:
            check()
        except Exception as error:
            logger.warning("readiness check %s failed: %s", name, type(error).__name__)
            checks[name] = {"ok": False, "error": type(error).__name__}
        else:
            checks[name] = {"ok": True}
        checks[name]["ms"] = round((time.monotonic() - started) * 1000, 1)
    failed = [name for name, result in checks.items() if not result["ok"]]
    body = {"status": "unavailable" if failed else "ready", "failed": failed, "checks": checks}
    return JsonResponse(body, status=503 if failed else 200)
