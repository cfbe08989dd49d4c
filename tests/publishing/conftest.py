import pytest
from django.db import transaction

from publishing.scheduling import record_compile_request
from tests.factories import PointFactory, TrailActivityFactory, TrailFactory, TrailSystemFactory


@pytest.fixture
def published_path(django_capture_on_commit_callbacks) -> str:
    """A system of a few trails (a file worth compressing), published."""
    system = TrailSystemFactory()
    for _ in range(5):
        TrailActivityFactory(trail=TrailFactory(trail_system=system), value="skiing")
    PointFactory(trail_system=system)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        record_compile_request(system, reason="test")
    system.refresh_from_db()
    return system.geo_json_path
