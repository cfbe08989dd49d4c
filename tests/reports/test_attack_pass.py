"""The attack pass on rider reports (issue 40, item 5): a photo's decoding is bounded in
memory and comes after the system's daily budget, the reporter's address is validated as a
subscriber's, and text that would turn around what follows it is removed."""

import io
import os
import subprocess
import sys

import pytest
from django.conf import settings
from PIL import Image

from reports.models import Report
from tests.reports.conftest import photo

pytestmark = pytest.mark.django_db

# What cleaning one photo may add to a worker's memory (the attack pass's PNG added 520 MB).
PHOTO_MEMORY_MAX = 150 * 1024 * 1024
# What the photo's cleaning takes in a process of the project's settings (a web or Celery
# worker), measured by the kernel: its peak resident size while cleaning (the peak is reset
# first, through /proc/self/clear_refs) less its size before, in bytes.
MEASURE = """
import re, sys
import django
django.setup()
from reports.photos import PhotoRefused, clean_photo
def kilobytes(field):
    with open("/proc/self/status") as status:
        return int(re.search(field + r":\\s+(\\d+) kB", status.read())[1])
data = sys.stdin.buffer.read()
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")
before = kilobytes("VmRSS")
try:
    clean_photo(data)
    outcome = "kept"
except PhotoRefused as refusal:
    outcome = refusal.code
print(outcome, (kilobytes("VmHWM") - before) * 1024)
"""


def cleaned_in_a_worker(body: bytes) -> tuple[str, int]:
    """The outcome of cleaning the photo in a process of its own, and what it added to that
    process's peak memory."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE],
        input=body,
        capture_output=True,
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        check=True,
        timeout=120,
    )
    outcome, peak = done.stdout.decode().split()
    return outcome, int(peak)


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def test_a_6_kb_png_of_50_megapixels_is_refused_within_the_workers_memory():
    """The attack pass: this PNG took 520 MB and 3.6 s to decode."""
    bomb = encoded(Image.new("1", (7071, 7071)), "PNG", optimize=True)
    assert len(bomb) < 10_000
    outcome, peak = cleaned_in_a_worker(bomb)
    print(f"{outcome}: {peak / 2**20:.0f} MB")
    assert outcome == "photo_too_large"
    assert peak < PHOTO_MEMORY_MAX


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        # A phone's 48-megapixel photo, sent without the map's form (which scales it first).
        (lambda: encoded(Image.new("RGB", (8000, 6000), (30, 120, 60)), "JPEG"), "kept"),
        # A PNG with transparency near the bound, and one over it.
        (lambda: encoded(Image.new("RGBA", (2400, 2400), (30, 120, 60, 128)), "PNG"), "kept"),
        (
            lambda: encoded(Image.new("RGBA", (3500, 3500), (30, 120, 60, 128)), "PNG"),
            "photo_too_large",
        ),
        # A palette PNG, converted before it is scaled.
        (lambda: encoded(Image.new("P", (2400, 2400), 3), "PNG"), "kept"),
        # A progressive JPEG is decoded whole whatever its scale.
        (
            lambda: encoded(
                Image.new("RGB", (8000, 6000), (30, 120, 60)), "JPEG", progressive=True
            ),
            "photo_too_large",
        ),
    ],
    ids=["jpeg-48mp", "png-rgba-6mp", "png-rgba-12mp", "png-palette", "progressive-jpeg-48mp"],
)
def test_the_photos_a_worker_cleans_stay_within_its_memory(make, expected):
    outcome, peak = cleaned_in_a_worker(make())
    print(f"{outcome}: {peak / 2**20:.0f} MB")
    assert outcome == expected
    assert peak < PHOTO_MEMORY_MAX


def test_the_daily_budget_is_checked_before_the_photo_is_decoded(system, file_report):
    system.reports_per_day = 1
    system.save()
    assert file_report(system).status_code == 201
    bomb = encoded(Image.new("1", (7071, 7071)), "PNG", optimize=True)
    answer = file_report(system, photo_body=bomb, photo_name="bomb.png")
    assert answer.status_code == 429
    assert answer.json()["error"]["code"] == "reports_paused"
    assert Report.objects.count() == 1


@pytest.mark.parametrize(
    "email", ["rider@localhost", "rider@[127.0.0.1]", "rider@[IPv6:::1]", "rider@intranet"]
)
def test_the_reporters_address_is_refused_as_a_subscribers_would_be(system, file_report, email):
    answer = file_report(system, email=email)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_field"
    assert "e-mail address" in answer.json()["error"]["message"]
    assert not Report.objects.exists()


def test_a_reporters_public_address_is_kept(system, file_report):
    assert file_report(system, email="Rider@Example.ORG").status_code == 201
    assert Report.objects.get().email == "Rider@example.org"


def test_bidi_controls_are_removed_from_report_text_and_notes(system, file_report, client_for):
    text = "Tree down \u202eenil eht no\u202c near the \u2067bridge\u2069 \u200fok"
    answer = file_report(system, description=text, photo_body=photo(size=(200, 100)))
    assert answer.status_code == 201
    report = Report.objects.get()
    assert report.description == "Tree down enil eht no near the bridge \u200fok"
    triaged = client_for(system.owner).patch(
        f"/api/v1/reports/{report.pk}", {"note": "Cleared \u202eyadot"}, format="json"
    )
    assert triaged.status_code == 200
    assert triaged.json()["note"] == "Cleared yadot"
