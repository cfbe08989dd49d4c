"""A system's Grooming page: upload a track, review its coverage, save; the recent passes."""

import json
import re
from datetime import timedelta
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from grooming.models import GroomedTrail, GroomingPass
from publishing.models import CompileRequest
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory
from tests.grooming.geo import gpx, path
from trails.models import StatusChange
from updates.models import Update

pytestmark = pytest.mark.django_db

# Two hours ago: a pass whose grooming still shows (a January one would not, see the browser
# tests).
START = (timezone.now() - timedelta(hours=2)).replace(microsecond=0)


def signed_in(client, user):
    client.force_login(user, backend="webapp.backends.RoleBackend")
    return client


def grooming_url(system) -> str:
    return f"/admin/trails/trailsystem/{system.pk}/grooming/"


@pytest.fixture
def world():
    """A system with a trustee, a 2 km trail the track follows and one 3 km away."""
    system = TrailSystemFactory(name="Bear Creek Nordic")
    trustee = MembershipFactory(trail_system=system, user__uid="groomer", role="Trustee").user
    main = TrailFactory(
        trail_system=system,
        name="Main Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (2000, 0)], step=100)},
    )
    far = TrailFactory(
        trail_system=system,
        name="Far Away",
        geometry={"type": "LineString", "coordinates": path([(0, 3000), (2000, 3000)], step=100)},
    )
    return system, trustee, main, far


def upload(name: str = "groomer.gpx", content: bytes | None = None) -> SimpleUploadedFile:
    track = content if content is not None else gpx([path([(0, 0), (2000, 0)])], START)
    return SimpleUploadedFile(name, track, content_type="application/gpx+xml")


def hidden_fields(page: str) -> dict[str, str]:
    """The review's save form, as the browser would post it back."""
    form = page[page.index('id="save-form"') :]
    return {
        name: unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form)
        if name != "csrfmiddlewaretoken"
    }


def test_the_page_is_for_those_who_manage_the_system_only(client, world):
    system, trustee, *_ = world
    outsider = MembershipFactory(user__uid="outsider", role="Trustee").user

    assert signed_in(client, outsider).get(grooming_url(system)).status_code == 404
    response = client.post(grooming_url(system), {"file": upload(), "tolerance_meters": 15})
    assert response.status_code == 404

    page = signed_in(client, trustee).get(grooming_url(system))
    assert page.status_code == 200
    assert 'id="grooming-form"' in page.content.decode()
    overview = client.get(f"/admin/trails/trailsystem/{system.pk}/overview/").content.decode()
    assert grooming_url(system) in overview
    # An Administrator also reaches it from the system page's object tools.
    change_page = signed_in(client, system.owner).get(
        f"/admin/trails/trailsystem/{system.pk}/change/"
    )
    assert grooming_url(system) in change_page.content.decode()
    assert client.get(grooming_url(system)).status_code == 200


def test_the_review_shows_the_coverage_and_writes_nothing(client, world):
    system, trustee, main, far = world
    response = signed_in(client, trustee).post(
        grooming_url(system),
        {"file": upload(), "tolerance_meters": 15, "condition": "classicGroomed"},
    )

    page = response.content.decode()
    table = page[page.index('id="coverage"') : page.index("</table>", page.index('id="coverage"'))]
    assert "Main Loop" in table and "100 %" in table
    assert "Far Away" not in table
    data = json.loads(re.search(r'id="grooming-map-data"[^>]*>(.*?)</script>', page).group(1))
    groomed = {f["id"]: f["properties"]["groomed"] for f in data["trails"]["features"]}
    assert groomed == {main.pk: True, far.pk: False}
    assert data["track"]["type"] == "MultiLineString"
    assert not GroomingPass.objects.exists()
    assert not Update.objects.exists()
    assert not CompileRequest.objects.exists()


def test_saving_posts_the_reviewed_pass_with_one_compile(client, world):
    system, trustee, main, _ = world
    review = signed_in(client, trustee).post(
        grooming_url(system),
        {"file": upload(), "tolerance_meters": 15, "condition": "classicGroomed"},
    )
    fields = hidden_fields(review.content.decode())

    response = client.post(grooming_url(system), {**fields, "save": "Save"}, follow=True)

    saved = re.search(r'<li class="success">(.*?)</li>', response.content.decode()).group(1)
    assert saved.startswith("Grooming saved: 1 trail groomed, shown on the map until")
    assert not saved.endswith("..")  # the time's "a.m." ends the sentence
    grooming_pass = GroomingPass.objects.get()
    # The track's last time survives the review, though the re-posted track carries no times.
    assert grooming_pass.groomed_at == START + timedelta(minutes=6, seconds=40)
    assert grooming_pass.uid == "groomer"
    assert list(GroomedTrail.objects.values_list("trail_id", flat=True)) == [main.pk]
    update = Update.objects.get()
    assert update.conditions == ["classicGroomed"]
    assert list(update.trails.all()) == [main]
    assert CompileRequest.objects.filter(trail_system=system).count() == 1
    assert StatusChange.objects.filter(trail=main, via="grooming", uid="groomer").exists()
    # The page then shows the pass, its trails, and its track on the map.
    page = response.content.decode()
    assert 'id="pass-trails"' in page and "Main Loop" in page
    assert '"track": {"type": "MultiLineString"' in unescape(page)


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("broken.gpx", b"<gpx><trk><trkseg><trkpt", "The GPX file cannot be read"),
        ("notes.txt", b"hello", "neither GPX nor valid JSON"),
        ("point.geojson", b'{"type": "Point", "coordinates": [0, 0]}', "not &#x27;Point&#x27;"),
        ("far.gpx", gpx([path([(0, 9000), (2000, 9000)])], START), "wholly outside"),
    ],
)
def test_a_bad_file_is_a_form_error_and_keeps_the_options(client, world, name, content, says):
    system, trustee, *_ = world
    response = signed_in(client, trustee).post(
        grooming_url(system),
        {"file": upload(name, content), "tolerance_meters": 22, "condition": "track-set"},
    )

    assert response.status_code == 200
    page = response.content.decode()
    assert says in page
    assert 'value="22.0"' in page or 'value="22"' in page
    assert '<option value="track-set" selected>' in page
    assert not GroomingPass.objects.exists()


def test_a_review_without_a_file_or_with_a_tampered_track_is_refused(client, world):
    system, trustee, *_ = world
    signed_in(client, trustee)

    missing = client.post(grooming_url(system), {"tolerance_meters": 15, "condition": "groomed"})
    assert "Choose a GPX or GeoJSON file." in missing.content.decode()
    tampered = client.post(
        grooming_url(system),
        {"track": "{not json", "tolerance_meters": 15, "condition": "groomed", "save": "Save"},
    )
    assert "The reviewed track was damaged" in tampered.content.decode()
    assert not GroomingPass.objects.exists()


def test_a_pass_of_another_system_is_not_shown(client, world):
    system, trustee, *_ = world
    other = GroomingPass.objects.create(
        trail_system=TrailSystemFactory(),
        groomed_at=START,
        uid="someone",
        condition="groomed",
        tolerance_meters=15,
        track={"type": "MultiLineString", "coordinates": []},
    )

    response = signed_in(client, trustee).get(f"{grooming_url(system)}?pass={other.pk}")
    assert response.status_code == 404


def test_the_page_is_in_french_for_a_french_browser(client, world):
    system, trustee, *_ = world
    page = signed_in(client, trustee).get(grooming_url(system), HTTP_ACCEPT_LANGUAGE="fr")

    assert "Téléverser une trace de damage" in page.content.decode()


def test_a_named_role_may_groom_too(client, world):
    system, *_ = world
    groomer = MembershipFactory(trail_system=system, user__uid="night-shift", role="Groomer").user

    response = signed_in(client, groomer).post(
        grooming_url(system), {"file": upload(), "tolerance_meters": 15, "condition": "groomed"}
    )

    assert 'id="coverage"' in response.content.decode()


def test_a_groomed_at_in_the_future_is_a_form_error(client, world):
    system, trustee, *_ = world
    response = signed_in(client, trustee).post(
        grooming_url(system),
        {
            "file": upload(),
            "tolerance_meters": 15,
            "condition": "groomed",
            "groomed_at": "2999-01-01T08:00",
        },
    )

    page = response.content.decode()
    assert "is in the future" in page
    assert 'id="save-form"' not in page
    assert not GroomingPass.objects.exists()
