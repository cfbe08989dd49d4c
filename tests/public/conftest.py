import pytest
from django.core.cache import cache
from django.db import transaction

from core.compiles import request_compile
from tests.factories import PointFactory, TrailActivityFactory, TrailFactory, TrailSystemFactory


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counters live in the cache, which outlives a test."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def published_system(django_capture_on_commit_callbacks):
    """A compiled system: open, caution and closed trails, a lift, a hidden trail, points."""
    system = TrailSystemFactory(name="Pine Hill Nordic")
    open_trail = TrailFactory(trail_system=system, name="Meadow Loop", status="Open", order=1)
    TrailActivityFactory(trail=open_trail, value="nordic-classic", status="Open")
    TrailFactory(trail_system=system, name="Ridge Run", status="Caution", order=2)
    TrailFactory(trail_system=system, name="Beaver Pond", status="Closed", order=3)
    TrailFactory(trail_system=system, name="Summit Lift", status="Open", type="Lift", order=4)
    TrailFactory(trail_system=system, name="Secret Path", status="Open", hidden=True, order=5)
    PointFactory(trail_system=system, name="Main lodge", marker_class="lodge")
    PointFactory(trail_system=system, name="Hidden shed", marker_class="cabin", hidden=True)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        request_compile(system, reason="test")
    system.refresh_from_db()
    return system
