"""A NUL byte or a newline in an id never reaches the database, and each interface answers
it as it answers any unknown route (defect 4)."""

import pytest

from tests.config.api_surface import assert_envelope
from tests.factories import TrailFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/trail-systems/a%00b",
        "/api/v1/trail-systems/a%00b/trails",
        "/api/v1/trails/%00",
        "/api/v1/points/x%00",
        "/api/v1/updates/x%00y",
        "/api/v1/keys/%00",
        "/api/v1/trail-systems/%0A",
        "/api/v1/%0A",
        "/api/v1/trails/x%7F",
    ],
)
@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_management_paths_with_control_characters_answer_the_envelope_404(manager, path, method):
    assert_envelope(getattr(manager, method)(path), 404, "not_found")


def test_a_real_id_followed_by_a_nul_names_nothing(system, manager):
    trail = TrailFactory(trail_system=system)
    assert_envelope(manager.get(f"/api/v1/trails/{trail.pk}%00"), 404, "not_found")
    assert manager.get(f"/api/v1/trails/{trail.pk}").status_code == 200


def test_other_pages_with_control_characters_are_a_plain_404(client):
    response = client.get("/admin/%0A")
    assert response.status_code == 404
    assert b"<html" not in response.content.lower()
