"""Dates before the year 1000 are written in ISO 8601 with four-digit years; dates outside
the years 0001 to 9999 are refused at input (defect 5)."""

from datetime import UTC, datetime

import pytest

from core.dates import iso_ms
from legacy.firestore import EPOCH, ONE_SECOND, with_timestamps
from tests.factories import TrailSystemFactory

pytestmark = pytest.mark.django_db

YEAR_999 = datetime(999, 1, 1, tzinfo=UTC)


def test_years_before_1000_keep_four_digits():
    assert iso_ms(YEAR_999) == "0999-01-01T00:00:00.000Z"
    assert iso_ms(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00.000Z"


def test_an_update_dated_year_999_is_iso_in_responses_and_published_as_a_timestamp(
    system, manager, client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = manager.post(
            f"/api/v1/trail-systems/{system.pk}/updates",
            {"type": "snowReport", "lastSnowDate": "0999-01-01T00:00:00.000Z"},
        )
    assert response.status_code == 201
    assert response.json()["lastSnowDate"] == "0999-01-01T00:00:00.000Z"
    system.refresh_from_db()
    assert system.published_updates["snowReport"][0]["lastSnowDate"] == ("0999-01-01T00:00:00.000Z")
    legacy = client.get(f"/legacy/ts/{system.pk}").json()
    assert legacy["updates"]["snowReport"][0]["lastSnowDate"] == {
        "_seconds": (YEAR_999 - EPOCH) // ONE_SECOND,
        "_nanoseconds": 0,
    }


def test_legacy_reads_short_years_stored_by_older_releases(client):
    system = TrailSystemFactory(
        published_updates={"notice": [{"id": "n", "updatedOn": "999-01-01T00:00:00.000Z"}]}
    )
    body = client.get(f"/legacy/ts/{system.pk}").json()
    assert body["updates"]["notice"][0]["updatedOn"]["_seconds"] == (YEAR_999 - EPOCH) // ONE_SECOND
    assert with_timestamps({"createdOn": "0999-01-01T00:00:00Z"})["createdOn"]["_seconds"] < 0


@pytest.mark.parametrize(
    "date",
    [
        "+275760-09-13T00:00:00.000Z",
        "-000001-01-01T00:00:00Z",
        "+010000-01-01T00:00:00Z",
        "9999-12-31T23:00:00-05:00",
        "0001-01-01T00:00:00+01:00",
    ],
)
def test_dates_outside_years_0001_to_9999_are_refused_with_a_clear_message(system, manager, date):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "x", "expirationDate": date},
    )
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid_field",
        "message": "expirationDate: must be between the years 0001 and 9999 (UTC).",
    }
