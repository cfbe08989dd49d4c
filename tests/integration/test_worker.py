import pytest
from django.db import connection, transaction

from publishing.models import CompileRequest
from publishing.scheduling import record_compile_request
from tests.factories import TrailSystemFactory
from tests.integration.conftest import wait_for

pytestmark = pytest.mark.integration


def test_compile_request_queued_by_a_write_is_served_by_a_real_worker(celery_worker):
    system = TrailSystemFactory()
    with transaction.atomic():
        compile_request = record_compile_request(system, reason="test")

    wait_for(lambda: CompileRequest.objects.get(pk=compile_request.pk).done_on)


def test_a_rolled_back_write_queues_nothing(celery_worker):
    system = TrailSystemFactory()
    with pytest.raises(RuntimeError), transaction.atomic():
        record_compile_request(system)
        raise RuntimeError("write failed")

    assert not CompileRequest.objects.exists()


def sessions_opened() -> int:
    """Connections ever made to the test database (PostgreSQL's own count)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def test_the_worker_keeps_its_database_connections_from_task_to_task(celery_worker):
    """A new connection per task (Celery's default with Django) costs a compile more than its
    queries; the worker's two processes connect once each."""
    system = TrailSystemFactory()

    def compile_once() -> None:
        with transaction.atomic():
            compile_request = record_compile_request(system, reason="test")
        wait_for(lambda: CompileRequest.objects.get(pk=compile_request.pk).done_on)

    compile_once()
    before = sessions_opened()
    for _ in range(8):
        compile_once()

    assert sessions_opened() - before <= 1  # the other process's first task
