import io

import pytest
from django.core.cache import cache
from PIL import Image

from tests.factories import TrailFactory, TrailSystemFactory, UserFactory, line


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counters live in the cache, which outlives a test."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _report_photos(settings, tmp_path):
    """Each test's photos in a folder of its own."""
    photos = {**settings.STORAGES["report_photos"]}
    photos["OPTIONS"] = {**photos.get("OPTIONS", {}), "location": tmp_path / "report-photos"}
    settings.STORAGES = {**settings.STORAGES, "report_photos": photos}


@pytest.fixture
def system():
    """Two trails in Montana, 1 km apart; the system has a phone number to call."""
    owner = UserFactory(uid="owner", email="owner@example.test")
    system = TrailSystemFactory(
        name="Lost Trail", owner=owner, phone_number="+1 406-555-0100", website=""
    )
    TrailFactory(trail_system=system, name="Timber Trail", geometry=line(-113.95, 45.69))
    TrailFactory(trail_system=system, name="Ridge Run", geometry=line(-113.95, 45.70))
    return system


def photo(fmt: str = "JPEG", size=(2400, 1800), **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 60)).save(out, format=fmt, **save)
    return out.getvalue()


@pytest.fixture
def file_report(client, django_capture_on_commit_callbacks):
    """Post the map's form from its own client address unless one is given."""
    count = iter(range(1, 1_000_000))

    def post(system, *, address=None, json=True, photo_body=None, photo_name="p.jpg", **fields):
        n = next(count)
        data = {
            "category": "fallenTree",
            "description": "A big pine across the trail",
            "lat": "45.6905",
            "lng": "-113.9495",
            "email": "",
            **fields,
        }
        if photo_body is not None:
            data["photo"] = io.BytesIO(photo_body)
            data["photo"].name = photo_name
        headers = {"HTTP_ACCEPT": "application/json"} if json else {}
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                f"/report/{system.pk}",
                data,
                REMOTE_ADDR=address or f"198.51.{n // 250}.{n % 250 + 1}",
                **headers,
            )

    return post
