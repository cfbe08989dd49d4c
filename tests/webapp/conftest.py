import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Sign-in link counters live in the cache, which outlives a test."""
    cache.clear()
    yield
    cache.clear()
