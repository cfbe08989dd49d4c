"""Every link on the pages a manager sees opens a page they may see: never a 403 (an account's
page is a superAdmin's; a system's details are its Administrators')."""

import re
from html import unescape

import pytest

from tests.webapp.world import World

pytestmark = pytest.mark.django_db

MANAGERS = ["owner", "Administrator member", "trustee", "named role"]
HREF = re.compile(r'href="(/admin/[^"#]*)"')


def pages_of(world: World) -> list[str]:
    system = world.system.pk
    pages = ["/admin/", f"/admin/trails/trailsystem/{system}/overview/"]
    pages += [f"/admin/trails/trailsystem/{system}/change/"]
    for label, row in world.ours.items():
        app, model = label.split(".")
        pages.append(f"/admin/{app}/{model}/{row.pk}/change/")
    return pages


@pytest.mark.slow
@pytest.mark.parametrize("person", MANAGERS)
def test_no_link_leads_a_manager_to_a_forbidden_page(person):
    world = World()
    client = world.client(person)
    forbidden = set()
    for page in pages_of(world):
        response = client.get(page)
        if response.status_code != 200:
            continue
        for link in set(HREF.findall(response.content.decode())):
            if "/logout/" in link:
                continue
            if client.get(unescape(link)).status_code == 403:
                forbidden.add((page, unescape(link)))
    assert forbidden == set()


def test_a_view_only_page_names_the_system_once_linked_to_its_overview():
    world = World()
    trashed = world.ours["trails.trashedtrail"]
    page = world.client("trustee").get(f"/admin/trails/trashedtrail/{trashed.pk}/change/")
    overview = f"/admin/trails/trailsystem/{world.system.pk}/overview/"
    assert page.content.decode().count(f'href="{overview}"') == 1
