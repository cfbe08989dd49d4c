"""Triage in the web app (issue 35, item 3): the board lists new reports, the Reports page
has them with a map, and one tap closes the nearest trail ("from a rider's report"),
resolves with a note or dismisses; Administrators may ask for an e-mail per new report."""

import html

import pytest
from django.core import mail
from django.test import Client

from reports.models import Report
from tests.factories import MembershipFactory, UserFactory
from tests.reports.conftest import photo
from tests.webapp.test_system_pages import signed_in
from trails.models import StatusChange, Trail

pytestmark = pytest.mark.django_db


@pytest.fixture
def crew_client(system):
    client = Client()
    signed_in(client, MembershipFactory(trail_system=system, role="Trustee").user)
    return client


@pytest.fixture
def owner_client(system):
    client = Client()
    signed_in(client, system.owner)
    return client


@pytest.fixture
def filed(system, file_report):
    body = file_report(
        system,
        description="<script>alert(1)</script> tree down",
        email="rider@example.test",
        photo_body=photo(size=(300, 200)),
    ).json()
    return Report.objects.get(pk=body["id"])


def test_the_board_shows_new_reports_with_trail_distance_and_photo(system, crew_client, filed):
    page = crew_client.get(f"/admin/trail-systems/{system.pk}/board/").content.decode()
    assert 'id="board-reports"' in page and 'data-count="1"' in page
    assert "Timber Trail" in page and " m from " in page
    assert f"/admin/trail-systems/{system.pk}/reports/{filed.pk}/photo" in page
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; tree down" in page
    assert "rider@example.test" not in page  # a crew member never sees the address
    polled = crew_client.get(f"/admin/trail-systems/{system.pk}/reports/?format=json&board=1")
    assert polled.json()["count"] == 1
    assert polled.json()["reports"][0]["trailName"] == "Timber Trail"
    photo_answer = crew_client.get(f"/admin/trail-systems/{system.pk}/reports/{filed.pk}/photo")
    assert photo_answer.status_code == 200 and photo_answer["Content-Type"] == "image/jpeg"


def test_the_reports_page_shows_the_address_to_administrators_only(
    system, crew_client, owner_client, filed
):
    url = f"/admin/trail-systems/{system.pk}/reports/"
    assert "rider@example.test" in owner_client.get(url).content.decode()
    page = crew_client.get(url).content.decode()
    assert 'id="reports-map"' in page and "rider@example.test" not in page


def test_strangers_get_404(system, filed):
    client = Client()
    signed_in(client, MembershipFactory(role="Administrator").user)
    assert client.get(f"/admin/trail-systems/{system.pk}/reports/").status_code == 404
    assert (
        client.get(f"/admin/trail-systems/{system.pk}/reports/{filed.pk}/photo").status_code == 404
    )


def test_one_tap_closes_the_nearest_trail_from_a_riders_report(
    system, crew_client, filed, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        answer = crew_client.post(
            f"/admin/trail-systems/{system.pk}/reports/{filed.pk}/",
            {"action": "close", "from": "board"},
            HTTP_ACCEPT="application/json",
        )
    assert answer.json() == {"done": "Timber Trail: Closed"}
    assert Trail.objects.get(pk=filed.trail_id).status == "Closed"
    change = StatusChange.objects.filter(trail_id=filed.trail_id, field="status").first()
    assert change.via == "report" and change.get_via_display() == "From a rider's report"


def test_a_tap_the_page_cannot_apply_is_refused_in_the_one_envelope(system, crew_client, filed):
    """The page's script shows the refusal's message, as every JSON page of the site says it."""
    url = f"/admin/trail-systems/{system.pk}/reports/"
    gone = crew_client.post(f"{url}nope/", {"action": "close"}, HTTP_ACCEPT="application/json")
    nothing = crew_client.post(f"{url}{filed.pk}/", {}, HTTP_ACCEPT="application/json")
    assert (gone.status_code, gone.json()) == (
        404,
        {"error": {"code": "report_not_found", "message": "This report is no longer here."}},
    )
    assert (nothing.status_code, nothing.json()) == (
        400,
        {"error": {"code": "invalid_field", "message": "Nothing to do."}},
    )


def test_resolve_with_a_note_and_the_rider_hears_back_once(
    system, crew_client, filed, django_capture_on_commit_callbacks
):
    url = f"/admin/trail-systems/{system.pk}/reports/{filed.pk}/"
    with django_capture_on_commit_callbacks(execute=True):
        answer = crew_client.post(url, {"action": "resolved", "note": "Cut & cleared"})
    assert answer.status_code == 302
    assert [m.to for m in mail.outbox] == [["rider@example.test"]]
    assert "Cut & cleared" in mail.outbox[0].body
    page = html.unescape(crew_client.get(answer["Location"]).content.decode())
    assert "Report resolved." in page


def test_the_rider_hears_back_in_the_systems_language(
    system, crew_client, filed, django_capture_on_commit_callbacks
):
    system.language = "fr"
    system.save()
    url = f"/admin/trail-systems/{system.pk}/reports/{filed.pk}/"
    with django_capture_on_commit_callbacks(execute=True):
        crew_client.post(url, {"action": "resolved", "note": "Arbre coupé"})
    [answer] = mail.outbox
    assert answer.subject == "Lost Trail : votre signalement est réglé"
    assert "L'équipe l'a marqué comme réglé. Sa note :\n\nArbre coupé" in answer.body
    assert "Merci de votre signalement à Lost Trail" in answer.body


def test_a_notice_is_the_update_form_prefilled(system, crew_client, filed):
    page = crew_client.get(f"/admin/trail-systems/{system.pk}/reports/").content.decode()
    assert "/admin/updates/update/add/?trail_system=" in page
    assert "type=notice" in page and f"trails={filed.trail_id}" in page


def test_administrators_opt_in_to_an_email_per_report(
    system, owner_client, crew_client, file_report
):
    MembershipFactory(trail_system=system, role="Administrator", user=UserFactory(uid="quiet"))
    owner_client.post(f"/admin/trail-systems/{system.pk}/reports/alert/", {"alert": "on"})
    assert (
        crew_client.post(
            f"/admin/trail-systems/{system.pk}/reports/alert/", {"alert": "on"}
        ).status_code
        == 403
    )
    file_report(system, description="Ice on the bridge", category="ice", email="r@example.test")
    assert [m.to for m in mail.outbox] == [["owner@example.test"]]
    assert "Ice on the bridge" in mail.outbox[0].body
    assert "r@example.test" not in mail.outbox[0].body
