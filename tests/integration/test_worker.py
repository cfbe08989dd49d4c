import pytest
from django.db import transaction

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
