"""The status board on a phone and at a desk, in Chromium against the demo: taps, a lost
connection, a reload without one, the changes confirmed once it is back and published; and
confirming every status, after which a stale one shows as unconfirmed to the public."""

import json
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone
from playwright.sync_api import expect

from apikeys.models import User
from core.actors import Via
from demo.loader import DEMO_TRUSTEE_UID, load_demo
from tests.browser import save_screenshot
from tests.webapp.test_browser import sign_in
from trails.enums import TrailType
from trails.models import StatusChange, Trail, TrailSystem
from trails.timezones import zone_of

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}


@pytest.fixture(params=[PHONE, DESK], ids=["390", "1280"])
def viewport(request) -> dict:
    return request.param


@pytest.fixture
def context(browser, viewport):
    context = browser.new_context(viewport=viewport, locale="en-US")
    context.set_default_timeout(15_000)
    yield context
    context.close()


def open_board(context, live_server, system: TrailSystem):
    """The demo's trustee signs in and opens the board from the web app's home."""
    page = context.new_page()
    sign_in(page, live_server, User.objects.get(pk=DEMO_TRUSTEE_UID))
    page.goto(f"{live_server.url}/admin/")
    page.locator("#my-systems tr", has_text=system.name).locator(".board-link").click()
    expect(page.locator("#board-sync")).to_have_text("Every change is saved.")
    return page


def tap(page, trail: Trail, status: str, activity: str = "") -> None:
    page.locator(f'#trail-{trail.pk} button[value="{trail.pk}|{activity}|{status}"]').click()


def row_sync(page, trail: Trail, activity: str = ""):
    row = page.locator(f"#trail-{trail.pk}")
    return row.locator(f'.board-activity[data-activity="{activity}"]') if activity else row


def published_statuses(system: TrailSystem) -> dict[str, dict]:
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        features = json.loads(stored.read())["features"]
    return {
        f["properties"]["trailId"]: f["properties"]
        for f in features
        if "trailId" in f["properties"] and f["properties"].get("showInLists")
    }


def test_a_patroller_closes_trails_in_taps_and_loses_nothing_offline(live_server, context):
    system, _ = load_demo()
    trails = list(
        Trail.objects.filter(trail_system=system, status="Open")
        .exclude(type=TrailType.LIFT)
        .filter(activities__status="Open")
        .distinct()
        .order_by("order")[:6]
    )
    closed, with_activity, offline = trails[:3], trails[3], trails[4:6]
    activity = with_activity.activities.filter(status="Open").first().value
    page = open_board(context, live_server, system)
    name = "390" if context.pages[0].viewport_size["width"] == 390 else "1280"
    save_screenshot(page, f"board-{name}-opened", full_page=False)

    for trail in closed:
        tap(page, trail, "Closed")
    tap(page, with_activity, "Caution", activity)
    for trail in closed:
        expect(row_sync(page, trail)).to_have_attribute("data-sync", "saved")
        expect(row_sync(page, trail)).to_have_attribute("data-status", "Closed")
    expect(row_sync(page, with_activity, activity)).to_have_attribute("data-sync", "saved")
    expect(page.locator("#board-sync")).to_have_text("Every change is saved.")

    context.set_offline(True)
    tap(page, offline[0], "Caution")
    tap(page, offline[1], "Closed")
    for trail in offline:
        expect(row_sync(page, trail).locator(".trail-head .sync-state")).to_have_text("Pending")
    expect(page.locator("#board-sync")).to_contain_text("2 changes waiting for the connection")
    save_screenshot(page, f"board-{name}-pending", full_page=False)
    if name == "390":
        save_screenshot(page, "board-pending", docs=True, full_page=False)
    assert {t.status for t in Trail.objects.filter(pk__in=[t.pk for t in offline])} == {"Open"}

    page.reload()  # still offline: the kept copy of the board, and the queue on top of it
    expect(page.locator("#board-sync")).to_contain_text("2 changes waiting for the connection")
    expect(row_sync(page, offline[0])).to_have_attribute("data-status", "Caution")
    expect(row_sync(page, offline[1])).to_have_attribute("data-status", "Closed")
    save_screenshot(page, f"board-{name}-reloaded-offline", full_page=False)

    context.set_offline(False)
    for trail in offline:
        expect(row_sync(page, trail).locator(".trail-head .sync-state")).to_have_text("Saved")
    expect(page.locator("#board-sync")).to_have_text("Every change is saved.")
    save_screenshot(page, f"board-{name}-confirmed", full_page=False)
    if name == "390":
        page.evaluate("window.scrollTo(0, 0)")
        save_screenshot(page, "board-saved", docs=True, full_page=False)

    published = published_statuses(system)
    assert [published[t.pk]["status"] for t in closed] == ["Closed"] * 3
    assert [published[t.pk]["status"] for t in offline] == ["Caution", "Closed"]
    shown = {a["value"]: a["status"] for a in published[with_activity.pk]["activities"]}
    assert shown[activity] == "Caution"
    recorded = StatusChange.objects.filter(field="status", activity="").exclude(via=Via.IMPORT)
    assert set(recorded.values_list("trail_id", "new_value", "via", "uid")) == {
        *((t.pk, "Closed", Via.WEB_APP, DEMO_TRUSTEE_UID) for t in closed),
        (offline[0].pk, "Caution", Via.WEB_APP, DEMO_TRUSTEE_UID),
        (offline[1].pk, "Closed", Via.WEB_APP, DEMO_TRUSTEE_UID),
    }


def test_a_refused_change_stays_on_the_board_as_failed(live_server, context):
    system, _ = load_demo()
    trail = Trail.objects.filter(trail_system=system).exclude(type=TrailType.LIFT).first()
    page = open_board(context, live_server, system)
    Trail.objects.filter(pk=trail.pk).update(trashed_on=timezone.now())  # by someone else

    tap(page, trail, "Closed")

    failure = page.locator("#board-failures li")
    expect(failure).to_contain_text(f"{trail.name}: Closed")
    expect(failure).to_contain_text("no longer in the system")
    expect(page.locator("#board-sync")).to_contain_text("1 change was refused")
    page.reload()
    expect(page.locator("#board-failures li")).to_contain_text(f"{trail.name}: Closed")
    page.locator("#board-failures button", has_text="Dismiss").click()
    expect(page.locator("#board-failures")).to_be_hidden()


@pytest.mark.parametrize("viewport", [PHONE], ids=["390"])
def test_confirm_all_then_a_status_confirmed_two_hours_ago_shows_as_unconfirmed(
    live_server, context, settings
):
    settings.PUBLIC_BASE_URL = live_server.url  # where the public map reads its file
    system, _ = load_demo()
    TrailSystem.objects.filter(pk=system.pk).update(unconfirmed_after_hours=1)
    page = open_board(context, live_server, system)
    expect(page.locator(".board-trail.is-unconfirmed").first).to_be_visible()  # never confirmed

    page.click("#confirm-all")
    expect(page.locator("#board-sync")).to_contain_text("Every change is saved. Confirmed ")
    expect(page.locator(".board-trail.is-unconfirmed")).to_have_count(0)
    confirmations = set(
        Trail.objects.filter(trail_system=system).values_list(
            "status_confirmed_on", "status_confirmed_by"
        )
    )
    assert len(confirmations) == 1  # one UPDATE: every trail at the same instant, by the trustee
    assert confirmations.pop()[1] == DEMO_TRUSTEE_UID

    stale = (
        Trail.objects.filter(trail_system=system, hidden=False)
        .exclude(type=TrailType.LIFT)
        .order_by("order")
        .first()
    )
    Trail.objects.filter(pk=stale.pk).update(
        status_confirmed_on=timezone.now() - timedelta(hours=2)
    )
    page.reload()
    expect(page.locator(".board-trail.is-unconfirmed")).to_have_count(1)
    expect(page.locator(f"#trail-{stale.pk} .unconfirmed-note")).to_contain_text(
        "Not confirmed for 2"
    )
    page.locator(f"#trail-{stale.pk}").scroll_into_view_if_needed()
    save_screenshot(page, "board-unconfirmed", docs=True, full_page=False)

    page.goto(f"{live_server.url}/map/{system.pk}")
    name = page.locator(".trail-name").get_by_text(stale.name, exact=True)
    item = page.locator("#trail-groups .trail-item").filter(has=name)
    # The map draws after its file and the confirmations route are read: slower than a form.
    expect(item.locator(".unconfirmed")).to_have_text(
        "Unconfirmed: last confirmed 2 h ago", timeout=15_000
    )
    expect(page.locator("#trail-groups .unconfirmed")).to_have_count(1)
    item.scroll_into_view_if_needed()
    save_screenshot(page, "public-map-unconfirmed", docs=True, full_page=False)

    page.goto(f"{live_server.url}/embed/{system.pk}/list")
    row = page.locator(f'.trail-row[data-trail-id="{stale.pk}"]')
    expect(row.locator(".unconfirmed")).to_have_text("Unconfirmed: last confirmed 2 h ago")
    expect(page.locator(".status-table .unconfirmed")).to_have_count(1)
    row.scroll_into_view_if_needed()
    save_screenshot(page, "embed-list-unconfirmed", docs=True, full_page=False)


@pytest.mark.parametrize("viewport", [PHONE], ids=["390"])
def test_closed_then_open_on_the_board_opens_the_activities_on_the_map_and_in_the_api(
    live_server, context, settings, client_for
):
    """Open means open in the web app (issue 33); a trail the API opened with every activity
    still Closed (the interface's rule) says so on the public map and in the embedded list."""
    settings.PUBLIC_BASE_URL = live_server.url
    system, _ = load_demo()
    trails = (
        Trail.objects.filter(trail_system=system, status="Open", activities__isnull=False)
        .exclude(type=TrailType.LIFT)
        .distinct()
        .order_by("order")
    )
    reopened, by_api = trails[0], trails[1]
    page = open_board(context, live_server, system)
    open_button = page.locator(f'#trail-{reopened.pk} button[value="{reopened.pk}||Open"]')
    expect(open_button).to_contain_text("+ closed activities")

    tap(page, reopened, "Closed")
    expect(row_sync(page, reopened)).to_have_attribute("data-sync", "saved")
    tap(page, reopened, "Open")
    expect(row_sync(page, reopened).locator(".board-activity")).not_to_have_count(0)
    for activity in row_sync(page, reopened).locator(".board-activity").all():
        expect(activity).to_have_attribute("data-status", "Open")
    expect(page.locator("#board-sync")).to_have_text("Every change is saved.")

    api = client_for(system.owner)
    body = api.get(f"/api/v1/trails/{reopened.pk}").json()
    assert {a["status"] for a in body["activities"]} | {body["status"]} == {"Open"}
    url = f"/api/v1/trails/{by_api.pk}"
    api.patch(url, {"status": "Closed"}, format="json")
    body = api.patch(url, {"status": "Open"}, format="json").json()
    assert {a["status"] for a in body["activities"]} == {"Closed"}  # the interface's rule
    published = published_statuses(system)
    assert {a["status"] for a in published[reopened.pk]["activities"]} == {"Open"}
    assert published[reopened.pk]["status"] == "Open"

    page.goto(f"{live_server.url}/map/{system.pk}")
    open_group = page.locator("#trail-groups .group-open")
    item = open_group.locator(".trail-item").filter(
        has=page.locator(".trail-name").get_by_text(by_api.name, exact=True)
    )
    expect(item.first.locator(".all-closed")).to_have_text("Every activity closed", timeout=15_000)
    reopened_item = open_group.locator(".trail-item").filter(
        has=page.locator(".trail-name").get_by_text(reopened.name, exact=True)
    )
    expect(reopened_item.first).to_be_visible()
    expect(page.locator("#trail-groups .all-closed")).to_have_count(1)

    page.goto(f"{live_server.url}/embed/{system.pk}/list")
    row = page.locator(f'.trail-row[data-trail-id="{by_api.pk}"]')
    expect(row.locator(".all-closed")).to_have_text("Every activity closed")
    expect(page.locator(".status-table .all-closed")).to_have_count(1)


def times_between(system: TrailSystem, start, end) -> set[str]:
    """The "HH:MM" a clock in the system's zone showed between two instants."""
    zone = zone_of(system)
    return {
        timezone.localtime(moment, zone).strftime("%H:%M")
        for moment in (start, end, start + (end - start) / 2)
    }


@pytest.mark.parametrize("viewport", [PHONE], ids=["390"])
def test_confirming_answers_with_the_count_and_time_and_every_card_says_who(live_server, context):
    """On a system without an "unconfirmed after" setting too (issue 33)."""
    system, _ = load_demo()
    assert not system.unconfirmed_after_hours
    trustee = User.objects.get(pk=DEMO_TRUSTEE_UID)
    person = trustee.email or trustee.uid
    page = open_board(context, live_server, system)
    notes = page.locator(".board-trail .confirmed-note")
    expect(notes).to_have_count(page.locator(".board-trail").count())
    expect(notes.first).to_have_text("Never confirmed")
    count = Trail.objects.filter(trail_system=system).count()

    before = timezone.now()
    page.click("#confirm-all")
    done = page.locator("#board-sync")
    expect(done).to_contain_text(f"Confirmed {count} trails at ")
    after = timezone.now()
    said = done.inner_text().removeprefix(f"Every change is saved. Confirmed {count} trails at ")
    assert said.rstrip(".") in (times_between(system, before, after))
    expect(notes.first).to_contain_text(f"by {person}")
    expect(page.locator(".board-trail .confirmed-note", has_text="Never")).to_have_count(0)
    expect(notes.first).to_contain_text("Last confirmed ")
    save_screenshot(page, "board-confirmed-all", full_page=False)

    first, second = Trail.objects.filter(trail_system=system).order_by("order")[:2]
    for trail in (first, second):
        page.locator(f'#trail-{trail.pk} input[name="trails"]').check()
    page.locator('#bulk-bar button[name="confirm"]').click()
    expect(done).to_contain_text("Confirmed 2 trails at ")
    at = done.inner_text().removeprefix("Every change is saved. Confirmed 2 trails at ")
    at = at.rstrip(".")

    page.reload()
    expect(page.locator(f"#trail-{first.pk} .confirmed-note")).to_have_text(
        f"Last confirmed {at} by {person}"
    )


@pytest.mark.parametrize("viewport", [PHONE], ids=["390"])
def test_trails_of_one_name_are_told_apart_on_the_board_and_in_the_pickers(
    live_server, context, settings
):
    """The demo's four Whoopee and two Broadway (issue 33): each says its category, difficulty,
    length and where it lies among its twins, and shows them on a small map on tap; the
    public map's list tells them apart too."""
    settings.PUBLIC_BASE_URL = live_server.url  # where the public map reads its file
    system, _ = load_demo()
    whoopees = list(Trail.objects.filter(trail_system=system, name="Whoopee"))
    assert len(whoopees) == 4
    page = open_board(context, live_server, system)

    for name, count in (("Whoopee", 4), ("Broadway", 2)):
        rows = page.locator(".board-trail").filter(
            has=page.locator(".trail-name").get_by_text(name, exact=True)
        )
        expect(rows).to_have_count(count)
        details = rows.locator(".twin-details").all_inner_texts()
        assert len(set(details)) == count, details  # each different
    single = Trail.objects.filter(trail_system=system, name="Saddle Mountain Lift").get()
    expect(page.locator(f"#trail-{single.pk} .twin-details")).to_have_count(0)  # twins only
    row = page.locator(f"#trail-{whoopees[0].pk}")
    expect(row.locator(".twin-svg")).to_be_hidden()
    row.locator(".twin-map summary").click()
    expect(row.locator(".twin-svg")).to_be_visible()
    expect(row.locator(".twin-svg .twin-self")).not_to_have_count(0)
    expect(row.locator(".twin-svg .twin-other")).not_to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    save_screenshot(page, "board-twins", full_page=False)

    page.goto(f"{live_server.url}/admin/updates/update/add/?trail_system={system.pk}")
    page.select_option("#id_type", "notice")
    picker = page.locator(".trail-picker")
    picker.locator(".trail-picker-search").fill("whoopee")
    options = picker.locator(".trail-picker-option:visible")
    expect(options).to_have_count(4)
    labels = [text.strip() for text in options.all_inner_texts()]
    assert len(set(labels)) == 4, labels
    assert all(label.startswith("Whoopee (Nordic · ") for label in labels), labels
    save_screenshot(page, "picker-twins", full_page=False)

    page.goto(f"{live_server.url}/admin/schedules/schedule/add/?trail_system={system.pk}")
    picker = page.locator(".trail-picker")
    picker.locator(".trail-picker-search").fill("broadway")
    options = picker.locator(".trail-picker-option:visible")
    expect(options).to_have_count(2)
    assert len(set(options.all_inner_texts())) == 2

    page.goto(f"{live_server.url}/map/{system.pk}")
    items = page.locator("#trail-groups .trail-item").filter(
        has=page.locator(".trail-name").get_by_text("Whoopee", exact=True)
    )
    expect(items).to_have_count(4, timeout=15_000)
    words = items.locator(".twin-details").all_inner_texts()
    assert len(set(words)) == 4 and all("Nordic" in said for said in words), words
    items.first.scroll_into_view_if_needed()
    save_screenshot(page, "public-map-twins", full_page=False)
