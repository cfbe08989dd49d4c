"""POST /report/<id>: what a rider's report keeps, and what it refuses (issue 35, item 2)."""

import html
import io
import struct
import zlib

import pytest
from django.core.files.storage import storages
from PIL import Image, PngImagePlugin
from prometheus_client import REGISTRY

from reports.models import Report
from tests.reports.conftest import photo

pytestmark = pytest.mark.django_db


def stored_image(report: Report) -> Image.Image:
    with storages["report_photos"].open(report.photo, "rb") as stored:
        image = Image.open(io.BytesIO(stored.read()))
        image.load()
    return image


def refused(reason: str) -> float:
    labels = {"reason": reason}
    return REGISTRY.get_sample_value("trails_reports_refused_total", labels) or 0.0


def test_a_report_is_kept_with_its_nearest_trail(system, file_report):
    response = file_report(system, email="rider@example.test")
    assert response.status_code == 201
    body = response.json()
    assert body["trailName"] == "Timber Trail"
    report = Report.objects.get(pk=body["id"])
    assert (report.category, report.email, report.state) == (
        "fallenTree",
        "rider@example.test",
        "new",
    )
    assert report.trail.name == "Timber Trail"
    assert 0 < report.trail_distance_km < 0.05


def test_the_photo_is_scaled_reencoded_and_stripped(system, file_report):
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x8825] = {2: (45.0, 41.0, 25.0), 1: "N"}  # GPS
    body = photo(size=(3000, 2000), exif=exif.tobytes())
    response = file_report(system, photo_body=body)
    assert response.status_code == 201, response.content
    report = Report.objects.get(pk=response.json()["id"])
    image = stored_image(report)
    assert image.format == "JPEG"
    assert max(image.size) == 1600
    assert not image.getexif()
    assert "exif" not in image.info and "xmp" not in image.info


def test_a_png_and_a_webp_are_kept_as_jpeg(system, file_report):
    for fmt in ("PNG", "WEBP"):
        response = file_report(system, photo_body=photo(fmt, size=(800, 600)))
        assert response.status_code == 201, response.content
        assert stored_image(Report.objects.get(pk=response.json()["id"])).size == (800, 600)


def test_a_png_with_a_script_in_its_text_chunk_is_refused(system, file_report):
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "<script>alert(document.cookie)</script>")
    before = refused("photo")
    response = file_report(system, photo_body=photo("PNG", size=(100, 100), pnginfo=info))
    assert response.status_code == 400
    assert "markup" in response.json()["error"]["message"]
    assert refused("photo") == before + 1
    assert not Report.objects.exists()


def bomb_png(width: int, height: int) -> bytes:
    """A valid PNG header that claims a huge image, then a small compressed stream of
    zeros: what a decompression bomb looks like before it is decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (width + 1) * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("side", [10_000, 40_000])
def test_a_decompression_bomb_is_refused_before_it_is_decoded(system, file_report, side):
    response = file_report(system, photo_body=bomb_png(side, side), photo_name="bomb.png")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "photo_too_large"
    assert not Report.objects.exists()


def test_a_9_mb_photo_is_refused(system, file_report):
    body = photo() + b"\x00" * (9 * 1024 * 1024)
    response = file_report(system, photo_body=body)
    assert response.status_code == 413
    assert "8 MB" in response.json()["error"]["message"]
    assert not Report.objects.exists()


def test_not_an_image_is_refused(system, file_report):
    response = file_report(system, photo_body=b"<svg onload=alert(1)>", photo_name="x.svg")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "photo_invalid"


def test_a_report_far_outside_the_system_is_refused(system, file_report):
    response = file_report(system, lat="46.5", lng="-113.95")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_far"
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    "fields",
    [
        {"category": "bears"},
        {"lat": ""},
        {"lat": "nan"},
        {"lng": "200"},
        {"email": "not an address"},
        {"description": "x" * 1001},
    ],
)
def test_bad_input_is_refused_and_the_form_keeps_what_was_typed(system, file_report, fields):
    response = file_report(system, json=False, **{"description": "Washed out bend", **fields})
    assert response.status_code == 400
    page = html.unescape(response.content.decode())
    assert 'role="alert"' in page
    if "description" not in fields:
        assert "Washed out bend" in page
    assert not Report.objects.exists()


def test_the_honeypot_is_refused(system, file_report):
    response = file_report(system, website="http://spam.example")
    assert response.status_code == 400
    assert not Report.objects.exists()


def test_text_is_text_on_the_page_without_script(system, file_report):
    response = file_report(system, json=False, category="nope", description="<b>bold</b>")
    assert "<b>bold</b>" not in response.content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt;" in response.content.decode()


def test_reports_of_the_same_problem_are_grouped(system, file_report):
    first = file_report(system, email="a@example.test").json()
    # About 40 m away, same category: the same fallen tree.
    second = file_report(system, lat="45.6908", lng="-113.9497", email="b@example.test").json()
    other_kind = file_report(system, category="ice").json()
    assert second["count"] == 2 and "others reported this too" in second["message"]
    assert other_kind["count"] == 1
    group = Report.objects.get(pk=first["id"])
    assert group.count == 2
    assert Report.objects.get(pk=second["id"]).duplicate_of_id == group.pk


def test_far_apart_reports_are_not_grouped(system, file_report):
    file_report(system)
    response = file_report(system, lat="45.7005", lng="-113.9495").json()
    assert response["count"] == 1


def test_an_unknown_or_inactive_system_is_not_found(system, file_report, client):
    system.inactive = True
    system.save()
    assert file_report(system).status_code == 404


def test_the_map_and_the_embed_offer_report_a_problem_and_say_it_is_not_for_emergencies(
    system, client
):
    for path in (f"/map/{system.pk}", f"/embed/{system.pk}"):
        page = html.unescape(client.get(path).content.decode())
        assert "Report a problem" in page and "Not for emergencies" in page
        assert "public/report.js" in page
    form = html.unescape(client.get(f"/report/{system.pk}").content.decode())
    assert 'name="category"' in form and "Not for emergencies" in form


def test_without_script_the_form_posts_and_says_received(system, file_report):
    response = file_report(system, json=False)
    assert response.status_code == 201
    assert "the crew of Lost Trail has your report" in html.unescape(response.content.decode())


def test_a_system_with_reports_off_has_no_button(system, client):
    system.reports_per_day = 0
    system.save()
    assert "Report a problem" not in client.get(f"/map/{system.pk}").content.decode()


FRENCH_REFUSALS = [
    ({"category": "bears"}, "Choisissez ce que vous avez vu."),
    ({"lat": ""}, "Où est-ce ? Autorisez votre position ou touchez la carte."),
    ({"lat": "nan"}, "La latitude doit être un nombre de -90 à 90."),
    ({"lng": "200"}, "La longitude doit être un nombre de -180 à 180."),
    ({"email": "not an address"}, "Ce n'est pas une adresse courriel."),
    ({"description": "x" * 1001}, "La description est trop longue"),
    ({"description": "a\x00b"}, "La description doit être du texte."),
    ({"lat": "46.5"}, "Cet endroit est à plus de 3 km des sentiers de Lost Trail."),
    ({"photo_body": b"<svg onload=alert(1)>"}, "La photo est illisible"),
    ({"photo_body": photo() + b"\x00" * (9 * 1024 * 1024)}, "La photo est trop lourde"),
    ({"website": "http://spam.example"}, "Ce signalement n'a pas pu être accepté."),
]


@pytest.mark.parametrize(("fields", "french"), FRENCH_REFUSALS)
@pytest.mark.parametrize("as_json", [True, False])
def test_every_refusal_on_a_french_system_is_french_without_a_field_prefix(
    system, file_report, fields, french, as_json
):
    system.language = "fr"
    system.save(update_fields=["language"])
    response = file_report(system, json=as_json, **fields)
    assert response.status_code in (400, 413)
    if as_json:
        message = response.json()["error"]["message"]
        assert message.startswith(french), message
    else:
        assert french in html.unescape(response.content.decode())
    for field in ("category:", "lat:", "lng:", "email:", "description:", "photo:"):
        assert field not in (message if as_json else response.content.decode())


def test_past_reports_per_day_the_french_form_says_so_in_french(system, file_report):
    system.language, system.reports_per_day = "fr", 1
    system.save(update_fields=["language", "reports_per_day"])
    assert file_report(system).status_code == 201
    paused = file_report(system, lat="45.70", lng="-113.95")
    assert paused.status_code == 429
    assert paused.json()["error"]["message"] == (
        "Lost Trail a reçu tous les signalements possibles aujourd'hui. Prévenez l'équipe "
        "directement : +1 406-555-0100."
    )
    assert int(paused["Retry-After"]) > 0
