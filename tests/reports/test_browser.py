"""Issue 35's "Done when", in Chromium: a rider at 390 x 844 on a throttled connection files a
report with a photo and the emulated position on the demo's public map; the upload is at most
1,600 px, the stored photo has no EXIF; the report shows on the owner's board within 5 s with
its nearest trail; one tap closes that trail and the public map shows it Closed; resolving it
e-mails the rider once."""

import io

import pytest
from django.core import mail
from django.core.files.storage import storages
from PIL import Image
from playwright.sync_api import expect

from apikeys.models import User
from demo.loader import DEMO_OWNER_UID, load_demo
from reports.models import Report
from tests.browser import save_screenshot
from tests.webapp.test_browser import sign_in
from trails.enums import TrailType
from trails.models import StatusChange, Trail

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
# A poor mobile connection: 400 kbit/s each way, 400 ms of latency.
THROTTLED = {
    "offline": False,
    "latency": 400,
    "downloadThroughput": 50_000,
    "uploadThroughput": 50_000,
}


@pytest.fixture
def live(live_server, settings, tmp_path):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MAP_POLL_SECONDS = 1
    photos = {**settings.STORAGES["report_photos"]}
    photos["OPTIONS"] = {**photos.get("OPTIONS", {}), "location": tmp_path / "report-photos"}
    settings.STORAGES = {**settings.STORAGES, "report_photos": photos}
    return live_server


def camera_photo(path) -> None:
    """A 4000 x 3000 JPEG with the EXIF a phone writes: its maker and a GPS position."""
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    exif[0x0110] = "Model X"
    exif[0x8825] = {1: "N", 2: (45.0, 41.0, 25.0), 3: "W", 4: (113.0, 57.0, 0.0)}
    Image.new("RGB", (4000, 3000), (40, 110, 70)).save(path, "JPEG", exif=exif.tobytes())


# Playwright does not show a multipart body holding a Blob: the page's own fetch notes the
# size of the photo each upload carries.
RECORD_UPLOADS = """() => {
window.uploadedPhotos = [];
const originalFetch = window.fetch;
window.fetch = function (url, options) {
  const photo = options && options.body instanceof FormData && options.body.get("photo");
  if (photo) {
    createImageBitmap(photo).then(function (bitmap) {
      window.uploadedPhotos.push({ width: bitmap.width, height: bitmap.height, bytes: photo.size });
    });
  }
  return originalFetch.apply(this, arguments);
};
}"""


@pytest.mark.slow
def test_a_rider_reports_a_fallen_tree_and_the_crew_closes_the_trail(
    live, browser, tmp_path, django_capture_on_commit_callbacks
):
    system, _ = load_demo()
    trail = (
        Trail.objects.filter(trail_system=system, status="Open")
        .exclude(type=TrailType.LIFT)
        .exclude(hidden=True)
        .order_by("order")
        .first()
    )
    lng, lat = trail.geometry["coordinates"][1][:2]
    picture = tmp_path / "tree.jpg"
    camera_photo(picture)

    owner = browser.new_context(viewport=PHONE, locale="en-US")
    owner.set_default_timeout(15_000)
    board = owner.new_page()
    sign_in(board, live, User.objects.get(pk=DEMO_OWNER_UID))
    board.goto(f"{live.url}/admin/trail-systems/{system.pk}/board/")
    expect(board.locator("#reports-count")).to_have_text("0 new")

    rider = browser.new_context(
        viewport=PHONE,
        locale="en-US",
        geolocation={"latitude": lat + 0.00005, "longitude": lng},
        permissions=["geolocation"],
    )
    rider.set_default_timeout(60_000)
    page = rider.new_page()
    cdp = rider.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", THROTTLED)
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator(f'path[data-trail-id="{trail.pk}"]')).to_have_attribute(
        "data-status", "Open", timeout=60_000
    )
    page.evaluate(RECORD_UPLOADS)
    page.click("#report-open")
    expect(page.locator(".report-emergency")).to_contain_text("Not for emergencies")
    page.locator(".report-chip", has_text="Fallen tree").click()
    page.fill("textarea[name=description]", "Big pine across the trail <b>after the bridge</b>")
    page.click("#report-locate")
    expect(page.locator("#report-place")).to_contain_text(f"Near {trail.name}", timeout=15_000)
    page.set_input_files("#report-photo", str(picture))
    page.fill("input[name=email]", "rider@example.test")
    save_screenshot(page, "report-390-form", full_page=False)
    page.wait_for_timeout(500)  # the photo is scaled on its change event
    # The connection drops: the upload fails, nothing typed is lost, and it is sent again.
    cdp.send("Network.emulateNetworkConditions", {**THROTTLED, "offline": True})
    page.click("#report-send")
    expect(page.locator("#report-status")).to_contain_text("Could not send: no connection")
    expect(page.locator("textarea[name=description]")).to_have_value(
        "Big pine across the trail <b>after the bridge</b>"
    )
    assert not Report.objects.exists()
    expect(page.locator("#report-retry")).to_be_visible()
    cdp.send("Network.emulateNetworkConditions", THROTTLED)  # back: it retries by itself
    expect(page.locator("#report-status")).to_contain_text("has your report", timeout=60_000)
    save_screenshot(page, "report-390-received", full_page=False)

    sent = page.evaluate("window.uploadedPhotos")
    assert len(sent) == 2  # the failed upload and its retry
    assert all(max(photo["width"], photo["height"]) == 1600 for photo in sent)
    report = Report.objects.get()
    assert report.trail_id == trail.pk
    with storages["report_photos"].open(report.photo, "rb") as stored:
        kept = Image.open(io.BytesIO(stored.read()))
    assert not kept.getexif() and "exif" not in kept.info

    # Within 5 s on the owner's board, with its nearest trail; text stays text.
    row = board.locator(f"#report-{report.pk}")
    expect(row).to_be_visible(timeout=5_000)
    expect(row).to_contain_text(trail.name)
    expect(row.locator(".report-description")).to_have_text(
        "Big pine across the trail <b>after the bridge</b>"
    )
    expect(board.locator("#reports-count")).to_have_text("1 new")
    save_screenshot(board, "report-board-390", full_page=False)

    row.get_by_role("button", name=f"Close {trail.name}").click()
    expect(row.get_by_role("button", name=f"Close {trail.name}")).to_have_count(0)
    assert Trail.objects.get(pk=trail.pk).status == "Closed"
    expect(page.locator(f'path[data-trail-id="{trail.pk}"]')).to_have_attribute(
        "data-status", "Closed", timeout=20_000
    )
    change = StatusChange.objects.filter(trail=trail, field="status").first()
    assert (change.new_value, change.via) == ("Closed", "report")

    row = board.locator(f"#report-{report.pk}")
    row.locator("input[name=note]").fill("Tree cut, trail open again tomorrow.")
    row.get_by_role("button", name="Resolved").click()
    expect(board.locator(f"#report-{report.pk}")).to_have_count(0)
    assert [m.to for m in mail.outbox] == [["rider@example.test"]]
    assert "Tree cut, trail open again tomorrow." in mail.outbox[0].body
    owner.close()
    rider.close()


def test_the_report_page_without_the_map_reads_as_a_form_on_a_phone(live, browser):
    """/report/<id>, where "Report a problem" leads without JavaScript: the categories are
    thumb-sized chips, the robots' trap field ("Website") is not shown to a rider, and the send
    button is a thumb's size."""
    system, _ = load_demo()
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US")
    page = context.new_page()
    page.goto(f"{live.url}/report/{system.pk}")
    expect(page.get_by_text("Website")).not_to_be_in_viewport()
    chip = page.locator(".report-categories label", has_text="Washout").bounding_box()
    assert chip["height"] >= 40
    send = page.get_by_role("button", name="Send the report").bounding_box()
    assert send["height"] >= 44
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    save_screenshot(page, "report-page-phone")
