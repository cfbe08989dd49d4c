"""Concurrent PATCHes of different fields of one trail, from two threads on PostgreSQL:
neither change is lost."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tests.conftest import token_for
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from trails.models import Trail

ROUNDS = 10


def patch_in_threads(path: str, token: str, bodies: list[dict]) -> list[int]:
    """Send each body from its own thread, all released at once; the HTTP statuses."""
    start = threading.Barrier(len(bodies))
    statuses: list[int] = []

    def send(body: dict) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        try:
            start.wait()
            statuses.append(client.patch(path, body, format="json").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


@pytest.mark.django_db(transaction=True)
def test_concurrent_patches_of_different_fields_keep_both():
    system = TrailSystemFactory()
    token = token_for(system.owner)
    for n in range(ROUNDS):
        trail = TrailFactory(trail_system=system, name="Before", description="Before")
        TrailActivityFactory(trail=trail, value="hiking")
        statuses = patch_in_threads(
            f"/api/v1/trails/{trail.pk}",
            token,
            [
                {"name": f"Name {n}"},
                {
                    "description": f"Description {n}",
                    "activities": [{"value": "hiking", "status": "Caution"}],
                },
                {"difficulty": "diamond"},
            ],
        )
        assert statuses == [200, 200, 200]
        trail = Trail.objects.get(pk=trail.pk)
        assert (trail.name, trail.description, trail.difficulty) == (
            f"Name {n}",
            f"Description {n}",
            "diamond",
        )
        assert trail.activities.get().status == "Caution"
