"""Every web app model and page, for every role: the matrix of the spec's roles (section 7).

The expected answers are written from the roles' definitions, not from webapp.roles:
superAdmin everything; Administrator (owner or `Administrator` member) the system's details,
members, the subscribers and everything below; Trustee or another named role trails, points,
updates and trash restore; no role nothing. Another system's row answers
404, as if it did not exist. A model registered in the admin but missing here fails the test.
"""

from dataclasses import dataclass

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.webapp.world import PEOPLE, World

pytestmark = pytest.mark.django_db

ADMINS = frozenset({"owner", "Administrator member", "superAdmin"})
MEMBERS = ADMINS | {"trustee", "named role"}
SUPER = frozenset({"superAdmin"})
NOBODY = frozenset()


@dataclass(frozen=True)
class Access:
    view: frozenset
    add: frozenset
    delete: frozenset


EXPECTED = {
    "trails.trailsystem": Access(view=ADMINS, add=SUPER, delete=SUPER),
    "trails.trail": Access(view=MEMBERS, add=MEMBERS, delete=MEMBERS),
    "trails.point": Access(view=MEMBERS, add=MEMBERS, delete=MEMBERS),
    "trails.trashedtrail": Access(view=MEMBERS, add=NOBODY, delete=ADMINS),
    "trails.trashedpoint": Access(view=MEMBERS, add=NOBODY, delete=ADMINS),
    "updates.update": Access(view=MEMBERS, add=MEMBERS, delete=MEMBERS),
    "schedules.schedule": Access(view=MEMBERS, add=MEMBERS, delete=MEMBERS),
    "updates.subscriber": Access(view=ADMINS, add=SUPER, delete=SUPER),
    "updates.delivery": Access(view=ADMINS, add=NOBODY, delete=NOBODY),
    "publishing.compilerequest": Access(view=ADMINS, add=NOBODY, delete=NOBODY),
    "webhooks.webhookendpoint": Access(view=ADMINS, add=ADMINS, delete=ADMINS),
    "webhooks.webhookdelivery": Access(view=ADMINS, add=NOBODY, delete=NOBODY),
    # Everyone's own keys; another account's key only for a superAdmin.
    "apikeys.apikey": Access(view=MEMBERS, add=MEMBERS, delete=NOBODY),
    "apikeys.user": Access(view=SUPER, add=SUPER, delete=SUPER),
    "auth.group": Access(view=SUPER, add=SUPER, delete=SUPER),
    "axes.accessattempt": Access(view=SUPER, add=NOBODY, delete=SUPER),
    "axes.accesslog": Access(view=SUPER, add=NOBODY, delete=SUPER),
    "axes.accessfailurelog": Access(view=SUPER, add=NOBODY, delete=SUPER),
}
REGISTERED = sorted(model._meta.label_lower for model in admin.site._registry)
PAGES = ["changelist", "add", "change", "history", "delete"]


def test_every_registered_model_is_in_the_matrix():
    assert set(REGISTERED) == set(EXPECTED)


def rows(world: World, label: str, person: str) -> tuple:
    """(a row of the person's own system or account, a row of another one or None)."""
    if label == "apikeys.apikey":
        return world.keys[person], world.their_key
    if label in world.ours:
        return world.ours[label], world.theirs[label]
    model = next(m for m in admin.site._registry if m._meta.label_lower == label)
    return model._default_manager.first(), None


def expected_status(access: Access, page: str, person: str, ours: bool) -> int:
    if person == "outsider":
        return 302  # not let in: sent to the sign-in page
    if page == "changelist":
        return 200 if person in access.view else 403
    if page == "add":
        return 200 if person in access.add else 403
    if person not in access.view:
        return 403
    if not (ours or person == "superAdmin"):
        return 404
    if page == "delete":
        return 200 if person in access.delete else 403
    return 200


def page_url(label: str, page: str, row) -> str:
    app_label, model_name = label.split(".")
    args = [] if page in ("changelist", "add") else [row.pk]
    return reverse(f"admin:{app_label}_{model_name}_{page}", args=args)


@pytest.mark.parametrize("label", REGISTERED)
def test_pages(label: str):
    """Every page of the model, for every person: (person, page, whose row, got) mismatches."""
    world = World()
    access = EXPECTED[label]
    wrong = []
    for person in PEOPLE:
        client = world.client(person)
        ours, theirs = rows(world, label, person)
        for page in PAGES:
            for row, is_ours in ((ours, True), (theirs, False)):
                if row is None or (page in ("changelist", "add") and not is_ours):
                    continue
                response = client.get(page_url(label, page, row))
                want = expected_status(access, page, person, is_ours)
                whose = "ours" if is_ours else "theirs"
                if response.status_code != want:
                    wrong.append((person, page, whose, response.status_code, want))
                elif want == 200 and person != "superAdmin":
                    # No list, filter or choice shows another system or another account.
                    content = response.content.decode()
                    if "Theirs" in content or "other-owner" in content:
                        wrong.append((person, page, whose, "shows another system's rows"))
    assert wrong == []
