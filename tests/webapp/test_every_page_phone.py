"""Every page of the web app on a phone (390 x 844), as a system's owner and as a crew member
(a named role): no enabled link, button or field lies beyond the screen's width, and no page
scrolls sideways. The pages are enumerated from the admin site's registry and URL patterns, so
a page added later is visited too. A screenshot of each goes to the screenshot folder
(`phone-<role>-<page>.png`).
"""

from collections.abc import Iterator

import pytest
from django.contrib import admin
from django.urls import URLPattern, reverse
from playwright.sync_api import expect

from tests.browser import save_screenshot
from tests.factories import ReportFactory
from tests.webapp.world import World

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
ROLES = {"owner": "owner", "crew": "named role"}
# Not pages a person reads: sign-in steps, password pages (the web app signs in by link or
# token), the admin's JSON and script endpoints, and the POST-only webhook actions.
NOT_PAGES = {
    "login",
    "login_token",
    "login_link",
    "login_link_use",
    "logout",
    "password_change",
    "password_change_done",
    "autocomplete",
    "jsi18n",
    "view_on_site",
    "board_worker",
    "webhooks_webhook_test",
    "webhooks_webhook_resume",
    "webhooks_webhook_send-failed",
    # A rider report's one-tap actions and alert switch (POST only) and its photo (an image).
    "trail_system_report",
    "trail_system_report_alert",
    "trail_system_report_photo",
    # The grooming recorder's endpoints (POST only); its page is visited.
    "trails_trailsystem_record_positions",
    "trails_trailsystem_record_stop",
}
# Pages each role must have reached, so that a test that visits nothing cannot pass.
MUST_VISIT = {
    "owner": {
        "index",
        "trails_trailsystem_overview",
        "trail_system_board",
        "trails_trailsystem_grooming",
        "trails_trailsystem_grooming_log",
        "trail_system_reports",
        "trails_trailsystem_record",
        "trails_trailsystem_trackers",
        "trails_trailsystem_history",
        "trails_trailsystem_change",
        "trails_trailsystem_invite",
        "trails_trail_changelist",
        "trails_trail_change",
        "updates_update_changelist",
        "updates_update_add",
        "schedules_schedule_add",
        "webhooks_webhookendpoint_changelist",
        "webhooks_webhookendpoint_change",
        "webhooks_webhook_rotate",
        "webhooks_webhookdelivery_change",
    },
    "crew": {
        "index",
        "trails_trailsystem_overview",
        "trail_system_board",
        "trails_trailsystem_grooming",
        "trail_system_reports",
        "trails_trail_changelist",
        "trails_trail_history",
        "updates_update_change",
        "schedules_schedule_changelist",
        "trails_trashedtrail_changelist",
    },
}

# What lies beyond the screen: every enabled control, and every table cell (a table scrolled
# or cut inside its box), whose box reaches past either side (a Leaflet map's markers are
# reached by moving the map); a box that cuts or scrolls what it holds sideways; and the
# page's own sideways scroll.
OUT_OF_REACH = """
(width) => {
  const found = [];
  const page = document.scrollingElement;
  if (page.scrollWidth > width + 1) {
    found.push(`the page scrolls sideways: ${page.scrollWidth} px wide`);
  }
  const controls = document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], td, th'
  );
  for (const control of controls) {
    if (control.disabled || control.closest('.leaflet-container')) continue;
    const box = control.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (getComputedStyle(control).visibility === 'hidden') continue;
    if (box.left < -1 || box.right > width + 1) {
      const text = (control.innerText || control.value || control.name || control.id || '').trim();
      const where = `${Math.round(box.left)}-${Math.round(box.right)}`;
      found.push(`${control.tagName.toLowerCase()} "${text.slice(0, 40)}" at x = ${where}`);
    }
  }
  for (const box of document.querySelectorAll('#content *')) {
    if (box.matches('input, textarea, select') || box.closest('.leaflet-container')) continue;
    // (A box of 1 px is text for screen readers only.)
    if (getComputedStyle(box).overflowX === 'visible' || box.clientWidth <= 1) continue;
    if (box.scrollWidth > box.clientWidth + 2) {
      const text = box.innerText.trim().slice(0, 40);
      const sizes = `${box.scrollWidth} px in ${box.clientWidth}`;
      found.push(`${box.tagName.toLowerCase()} "${text}" cut: ${sizes}`);
    }
  }
  return found;
}
"""


def registered_pages() -> Iterator[tuple[URLPattern, type | None]]:
    """(pattern, the model whose row it shows, or None) for every named page of the site."""
    for pattern in admin.site.get_urls():
        if isinstance(pattern, URLPattern):
            yield pattern, None
    for model, model_admin in admin.site._registry.items():
        for pattern in model_admin.get_urls():
            yield pattern, model


def row_of(world: World, person: str, model):
    label = model._meta.label_lower
    if label == "apikeys.apikey":
        return world.keys[person]
    return world.ours.get(label) or model._default_manager.first()


def page_urls(world: World, person: str) -> list[tuple[str, str, str]]:
    """(URL name, screenshot name, address) of every page, its rows from the person's system."""
    app_labels = sorted({model._meta.app_label for model in admin.site._registry})
    pages = []
    for pattern, model in registered_pages():
        if pattern.name is None or pattern.name in NOT_PAGES:
            continue
        needs = set(pattern.pattern.regex.groupindex)
        if needs == {"app_label"}:
            pages += [
                (pattern.name, f"{pattern.name}-{app}", reverse("admin:app_list", args=[app]))
                for app in app_labels
            ]
            continue
        arguments = {}
        if "system_id" in needs:
            arguments["system_id"] = world.system.pk
        if "object_id" in needs:
            row = row_of(world, person, model)
            if row is None:
                continue
            arguments["object_id"] = row.pk
        address = reverse(f"admin:{pattern.name}", kwargs=arguments)
        pages.append((pattern.name, pattern.name, address))
    # The Overview's links: a list of the one system, and the snow-report form.
    system = world.system.pk
    return [
        *pages,
        (
            "trails_trail_changelist",
            "trails_trail_changelist-of-one-system",
            f"/admin/trails/trail/?trail_system__id__exact={system}",
        ),
        (
            "updates_update_add",
            "updates_update_add-snow-report",
            f"/admin/updates/update/add/?trail_system={system}&type=snowReport",
        ),
    ]


def looked_at(page, name: str) -> dict[str, list[str]]:
    """The page's screenshot saved as `name`; {name: what lies beyond the screen} or {}."""
    save_screenshot(page, name)
    found = page.evaluate(OUT_OF_REACH, PHONE["width"])
    return {name: found} if found else {}


@pytest.mark.slow
def test_every_page_fits_a_phone_for_an_owner_and_a_crew_member(live_server, browser):
    world = World()
    ReportFactory(trail_system=world.system)  # the Reports page and the board list one
    out_of_reach: dict[str, list[str]] = {}
    visited: dict[str, set[str]] = {}
    for role, person in ROLES.items():
        context = browser.new_context(viewport=PHONE, locale="en-US", is_mobile=True)
        context.set_default_timeout(15_000)
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        session = world.client(person).cookies["sessionid"].value
        context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
        page = context.new_page()
        visited[role] = set()
        for name, shot, address in page_urls(world, person):
            response = page.goto(f"{live_server.url}{address}")
            if response.status in (403, 404, 405):  # not this person's page
                continue
            assert response.status == 200, f"{role} {address}: {response.status}"
            visited[role].add(name)
            out_of_reach |= looked_at(page, f"phone-{role}-{shot}")
            if name == "webhooks_webhook_rotate":
                # The new secret's page: the only way to see it is this form's answer.
                page.click("#rotate")
                out_of_reach |= looked_at(page, f"phone-{role}-webhook-secret")
                secret = page.input_value("#webhook-secret")
                page.click(".copyable .copy-button")
                expect(page.locator(".copyable .copy-button")).to_have_text("Copied")
                assert page.evaluate("navigator.clipboard.readText()") == secret
        context.close()

    for role, names in MUST_VISIT.items():
        assert names <= visited[role], f"{role} did not reach {sorted(names - visited[role])}"
    assert not out_of_reach, "Out of reach at 390 px:\n" + "\n".join(
        f"{page}: {'; '.join(found)}" for page, found in out_of_reach.items()
    )
