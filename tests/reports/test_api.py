"""GET /trail-systems/:id/reports, GET|PATCH /reports/:id and a report's photo: any role of
the system reads and triages, the reporter's address is for Administrators only, and the
reporters hear back once when it is resolved (issue 35, items 4 and 5)."""

from datetime import UTC, datetime

import pytest
from django.core import mail

from reports.models import Report
from tests.factories import MembershipFactory, ReportFactory, TrailSystemFactory
from tests.reports.conftest import photo

pytestmark = pytest.mark.django_db


@pytest.fixture
def crew(system):
    return MembershipFactory(trail_system=system, role="Trustee").user


@pytest.fixture
def filed(system, file_report):
    """A report with a photo and an address, and a second report of the same tree."""
    first = file_report(system, email="first@example.test", photo_body=photo(size=(400, 300)))
    file_report(system, lat="45.6907", lng="-113.9496", email="second@example.test")
    return Report.objects.get(pk=first.json()["id"])


def test_the_system_roles_list_reports_newest_first(system, crew, client_for, file_report, filed):
    newer = file_report(system, category="ice").json()["id"]
    owner_list = client_for(system.owner).get(f"/api/v1/trail-systems/{system.pk}/reports")
    assert owner_list.status_code == 200
    reports = owner_list.json()["reports"]
    assert [r["id"] for r in reports] == [newer, filed.pk]
    grouped = reports[1]
    assert grouped["count"] == 2
    assert grouped["trailName"] == "Timber Trail" and grouped["trailId"] == filed.trail_id
    assert grouped["email"] == "first@example.test"
    crew_list = client_for(crew).get(f"/api/v1/trail-systems/{system.pk}/reports").json()
    assert all("email" not in r for r in crew_list["reports"])
    assert "first@example.test" not in str(crew_list)


def test_another_systems_report_is_404_as_a_missing_one(system, client_for, filed):
    """The attack pass: a report id of another system answered 403, telling that it exists."""
    stranger = MembershipFactory(trail_system=TrailSystemFactory(), role="Administrator").user
    client = client_for(stranger)
    assert client.get(f"/api/v1/trail-systems/{system.pk}/reports").status_code == 403
    missing = client.get("/api/v1/reports/nope")
    assert missing.status_code == 404
    for answer in (
        client.get(f"/api/v1/reports/{filed.pk}"),
        client.patch(f"/api/v1/reports/{filed.pk}", {"state": "dismissed"}, format="json"),
        client.get(f"/api/v1/reports/{filed.pk}/photo"),
    ):
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "report_not_found"
    assert Report.objects.get(pk=filed.pk).state == "new"


def test_the_photo_is_for_those_who_may_see_the_report(system, crew, client_for, api, filed):
    url = client_for(crew).get(f"/api/v1/reports/{filed.pk}").json()["photoUrl"]
    assert url.endswith(f"/api/v1/reports/{filed.pk}/photo")
    answer = client_for(crew).get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "image/jpeg"
    assert answer.content[:2] == b"\xff\xd8"
    assert api.get(url).status_code == 401
    # Kept outside the public media folder: no address serves it to the public.
    assert api.get(f"/media/{filed.photo}").status_code == 404


def test_filter_by_state_and_pages(system, client_for):
    for n in range(5):
        ReportFactory(trail_system=system, state="resolved" if n % 2 else "new", lat=45 + n)
    api = client_for(system.owner)
    base = f"/api/v1/trail-systems/{system.pk}/reports"
    assert len(api.get(f"{base}?state=new").json()["reports"]) == 3
    first = api.get(f"{base}?limit=2").json()
    second = api.get(f"{base}?limit=2&before={first['next']}").json()
    third = api.get(f"{base}?limit=2&before={second['next']}").json()
    ids = [r["id"] for page in (first, second, third) for r in page["reports"]]
    assert len(ids) == len(set(ids)) == 5 and third["next"] is None
    assert api.get(f"{base}?state=open").status_code == 400
    assert api.get(f"{base}?limit=0").status_code == 400


def test_resolving_emails_each_reporter_once_with_the_note(
    system, crew, client_for, filed, django_capture_on_commit_callbacks
):
    api = client_for(crew)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.patch(
            f"/api/v1/reports/{filed.pk}",
            {"state": "resolved", "note": "Tree cut and cleared."},
            format="json",
        )
    assert answer.status_code == 200, answer.content
    assert answer.json()["state"] == "resolved"
    assert sorted(m.to[0] for m in mail.outbox) == ["first@example.test", "second@example.test"]
    assert all("Tree cut and cleared." in m.body for m in mail.outbox)
    with django_capture_on_commit_callbacks(execute=True):
        api.patch(f"/api/v1/reports/{filed.pk}", {"state": "new"}, format="json")
        api.patch(f"/api/v1/reports/{filed.pk}", {"state": "resolved"}, format="json")
    assert len(mail.outbox) == 2


def test_dismissing_sends_nothing(system, client_for, filed, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(system.owner).patch(
            f"/api/v1/reports/{filed.pk}", {"state": "dismissed"}, format="json"
        )
    assert answer.json()["state"] == "dismissed"
    assert mail.outbox == []
    assert not Report.objects.filter(state="new").exists()


def test_a_patch_with_a_bad_state_is_refused(system, client_for, filed):
    answer = client_for(system.owner).patch(
        f"/api/v1/reports/{filed.pk}", {"state": "closed"}, format="json"
    )
    assert answer.status_code == 400


def test_a_french_reporter_hears_back_with_the_date_in_french(
    system, crew, client_for, filed, django_capture_on_commit_callbacks
):
    """The received date is the language's own ("28 novembre 2026"), not "28 Nov 2026"."""
    system.language = "fr"
    system.time_zone = "America/Boise"
    system.save(update_fields=["language", "time_zone"])
    Report.objects.filter(pk=filed.pk).update(created_on=datetime(2026, 11, 28, 17, 5, tzinfo=UTC))
    with django_capture_on_commit_callbacks(execute=True):
        client_for(crew).patch(f"/api/v1/reports/{filed.pk}", {"state": "resolved"}, format="json")
    body = next(m.body for m in mail.outbox if m.to == ["first@example.test"])
    assert "28 novembre 2026" in body
    assert "Nov" not in body
