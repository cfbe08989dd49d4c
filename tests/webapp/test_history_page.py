"""The History button of a trail, a point and a trail system: the status history, with who
changed what, when and by which path, newest first, a page at a time, filtered by date."""

from datetime import datetime, time, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.actors import Actor, Via
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UserFactory,
)
from tests.webapp.test_browser import sign_in
from trails.models import StatusChange
from trails.timezones import zone_of
from trails.trash import trash_trail
from webapp.history_page import CHANGES_PER_PAGE


def history_url(row) -> str:
    return reverse(f"admin:trails_{row._meta.model_name}_history", args=[row.pk])


@pytest.fixture
def bear_creek():
    """A system with two open trails and a point, its owner (an Administrator) and another
    system's trail."""
    system = TrailSystemFactory(
        name="Bear Creek Nordic", owner=UserFactory(uid="owner-uid", email="ann@example.test")
    )
    trails = [
        TrailActivityFactory(
            trail__trail_system=system, trail__name=name, value="nordic-classic"
        ).trail
        for name in ("Aspen Loop", "Beaver Run")
    ]
    point = PointFactory(trail_system=system, name="Warming Hut", wait_time=5)
    TrailFactory(name="Somebody Else's Trail", trail_system=TrailSystemFactory(name="Elsewhere"))
    return system, trails, point


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [(390, 844), (1280, 900)], ids=["phone", "desk"])
def test_the_system_history_shows_a_trail_closed_by_the_api_and_one_by_a_bulk_action(
    viewport, live_server, page, screenshot, bear_creek, key_client_for
):
    system, (aspen, beaver), point = bear_creek
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    api = key_client_for(system.owner)
    assert (
        api.patch(f"/api/v1/trails/{aspen.pk}", {"status": "Closed"}, format="json").status_code
        == 200
    )
    assert (
        api.patch(f"/api/v1/points/{point.pk}", {"waitTime": 25}, format="json").status_code == 200
    )
    sign_in(page, live_server, system.owner)

    page.goto(f"{live_server.url}/admin/trails/trail/")
    page.check(f"input[name=_selected_action][value='{beaver.pk}']")
    page.select_option("select[name=action]", "set_status_closed")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("1 trail set to Closed.")
    # The list shows each trail's status without scrolling sideways, on a phone too.
    status = page.locator("#result_list tr", has_text="Beaver Run").locator("td.field-status")
    expect(status).to_have_text("Closed")
    box = status.bounding_box()
    assert box["x"] + box["width"] <= viewport[0]

    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/change/")
    page.click(".object-tools a.historylink")
    rows = page.locator("table.status-history tbody tr")
    # Newest first: the bulk action's two changes (trail, activity), then the API's.
    expect(rows.first).to_contain_text("Beaver Run")
    expect(rows.first).to_contain_text("Bulk change")
    expect(rows.first).to_contain_text("ann@example.test")
    text = page.inner_text("table.status-history")
    assert "Aspen Loop" in text and "Warming Hut" in text
    assert "Somebody Else's Trail" not in text
    aspen_row = rows.filter(has_text="Aspen Loop").filter(has_text="Status").first
    expect(aspen_row).to_contain_text("API key")
    expect(aspen_row).to_contain_text("Open")
    expect(aspen_row.locator(".history-new")).to_have_text("Closed")
    expect(rows.filter(has_text="Classic")).to_have_count(2)  # each trail's activity too
    expect(page.locator(".history-new").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]
    width = "phone" if viewport[0] < 500 else "desk"
    screenshot(f"webapp-system-history-{width}", docs=True)

    # A day with no change: nothing; today: everything again (days in the system's zone).
    yesterday = (timezone.localdate(timezone=zone_of(system)) - timedelta(days=1)).isoformat()
    page.fill("#id_since", yesterday)
    page.fill("#id_until", yesterday)
    page.click("#history-filter input[type=submit]")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("No status change recorded yet.")
    page.click(".history-all")
    expect(rows).to_have_count(5)

    # The trail's own History button: its changes only.
    page.goto(f"{live_server.url}/admin/trails/trail/{aspen.pk}/change/")
    page.click(".object-tools a.historylink")
    expect(rows).to_have_count(2)
    expect(page.locator("table.status-history")).not_to_contain_text("Beaver Run")


@pytest.mark.django_db
def test_the_history_is_paginated_newest_first_and_holds_trashed_rows(client, bear_creek):
    system, (aspen, beaver), point = bear_creek
    owner = Actor(system.owner.pk, Via.WEB_APP)
    trash_trail(trail=beaver, actor=owner)
    start = timezone.make_aware(datetime.combine(timezone.localdate() - timedelta(days=3), time(9)))
    StatusChange.objects.bulk_create(
        StatusChange(
            trail_system=system,
            trail=aspen,
            uid="owner-uid",
            via=Via.SCHEDULE,
            field="status",
            old_value="Open",
            new_value="Closed",
            at=start + timedelta(minutes=i),
        )
        for i in range(CHANGES_PER_PAGE + 5)
    )
    client.force_login(system.owner)

    first = client.get(history_url(system))
    assert first.status_code == 200
    body = first.content.decode()
    assert body.index("Beaver Run") < body.index("Aspen Loop")  # trashed today: newest
    assert "In the trash" in body and f"/admin/trails/trashedtrail/{beaver.pk}/" in body
    assert "Page 1 of 2" in body
    second = client.get(history_url(system), {"page": 2}).content.decode()
    assert second.count('class="history-via">Schedule<') == 6  # the 56 changes, 50 + 1 on page one
    assert "Beaver Run" not in second

    three_days_ago = start.date().isoformat()
    only_then = client.get(history_url(system), {"since": three_days_ago, "until": three_days_ago})
    assert "Beaver Run" not in only_then.content.decode()
    backwards = client.get(history_url(aspen), {"since": "2026-02-02", "until": "2026-02-01"})
    assert "The end date is before the start date." in backwards.content.decode()

    point_page = client.get(history_url(point)).content.decode()
    assert "No status change recorded yet." in point_page
