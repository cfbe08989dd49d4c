"""Every bulk action of every web app model, for every role, on a row of the person's system
and a row of another: the first changes only when the role allows the action, the second never
(except for a superAdmin). Expected answers come from the roles' definitions (see
test_role_matrix), and a registered action missing here fails the test."""

import secrets
from collections.abc import Callable

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import RequestFactory
from django.urls import reverse

from tests.factories import (
    PointFactory,
    ScheduleFactory,
    SubscriberFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    UserFactory,
    create_api_key,
)
from tests.webapp.test_role_matrix import ADMINS, MEMBERS, SUPER
from tests.webapp.world import ACTOR, PEOPLE, World
from trails.trash import trash_point, trash_trail
from webhooks.services import create_endpoint, send_test_event

pytestmark = pytest.mark.django_db

STATUS_ACTIONS = ["set_status_open", "set_status_caution", "set_status_closed", "set_status_none"]
EXPECTED = {
    "trails.trailsystem": {"delete_selected": SUPER},
    "trails.trail": {
        **dict.fromkeys(STATUS_ACTIONS, MEMBERS),
        "delete_selected": MEMBERS,
    },
    "trails.point": {"delete_selected": MEMBERS},
    "trails.trashedtrail": {"restore": MEMBERS, "delete_selected": ADMINS},
    "trails.trashedpoint": {"restore": MEMBERS, "delete_selected": ADMINS},
    "updates.update": {"delete_selected": MEMBERS},
    "schedules.schedule": {"delete_selected": MEMBERS},
    "updates.subscriber": {"unsubscribe": ADMINS, "export_csv": ADMINS, "delete_selected": SUPER},
    "updates.delivery": {},
    "publishing.compilerequest": {},
    "webhooks.webhookendpoint": {
        "delete_selected": ADMINS,
        "resume": ADMINS,
        "send_failed_again": ADMINS,
    },
    "webhooks.webhookdelivery": {"send_again": ADMINS},
    "apikeys.apikey": {"revoke": MEMBERS},
    "apikeys.user": {"delete_selected": SUPER},
    "auth.group": {"delete_selected": SUPER},
    "axes.accessattempt": {"delete_selected": SUPER},
    "axes.accesslog": {"delete_selected": SUPER},
    "axes.accessfailurelog": {"delete_selected": SUPER},
}


def trashed_trail(system):
    trail = TrailFactory(trail_system=system)
    trash_trail(trail=trail, actor=ACTOR)
    return trail


def trashed_point(system):
    point = PointFactory(trail_system=system)
    trash_point(point=point, actor=ACTOR)
    return point


def webhook(system):
    return create_endpoint(
        system=system,
        url="https://hooks.example.org/matrix",
        events=["update.created"],
        actor=ACTOR,
    ).endpoint


def axes_row(model) -> Callable:
    def make(system):
        fields = {"failures_since_start": 1} if model is AccessAttempt else {}
        return model.objects.create(
            username=f"nobody-{secrets.token_hex(4)}", ip_address="10.9.9.9", **fields
        )

    return make


# A fresh row of each model on a system (None: the model belongs to no system).
NEW_ROW: dict[str, Callable] = {
    "trails.trailsystem": lambda system: TrailSystemFactory(),
    "trails.trail": lambda system: TrailActivityFactory(trail__trail_system=system).trail,
    "trails.point": lambda system: PointFactory(trail_system=system),
    "trails.trashedtrail": trashed_trail,
    "trails.trashedpoint": trashed_point,
    "updates.update": lambda system: UpdateFactory(trail_system=system),
    "schedules.schedule": lambda system: ScheduleFactory(trail_system=system),
    "updates.subscriber": lambda system: SubscriberFactory(trail_system=system),
    "apikeys.user": lambda system: UserFactory(),
    "auth.group": lambda system: Group.objects.create(name=f"Crew {Group.objects.count()}"),
    "axes.accessattempt": axes_row(AccessAttempt),
    "axes.accesslog": axes_row(AccessLog),
    "axes.accessfailurelog": axes_row(AccessFailureLog),
    "webhooks.webhookendpoint": webhook,
    "webhooks.webhookdelivery": lambda system: send_test_event(
        endpoint=webhook(system), actor=ACTOR
    ),
}
SYSTEM_BOUND = {
    label
    for label in EXPECTED
    if label.startswith(("trails.", "updates.", "schedules.", "webhooks."))
}
REGISTRY = {
    model._meta.label_lower: (model, model_admin)
    for model, model_admin in admin.site._registry.items()
}


def registered_actions(label: str) -> set[str]:
    """The actions a superuser is offered on the model's list."""
    model_admin = REGISTRY[label][1]
    request = RequestFactory().get("/")
    request.user = UserFactory.build(is_superuser=True, is_active=True)
    return set(model_admin.get_actions(request))


def test_every_registered_action_is_in_the_matrix():
    for label in REGISTRY:
        assert registered_actions(label) == set(EXPECTED[label]), label


def snapshot(model, pk):
    return model._base_manager.filter(pk=pk).values().first()


def rows_for(world: World, label: str, person: str):
    if label == "apikeys.apikey":
        return create_api_key(world.people[person])[0], create_api_key(world.other.owner)[0]
    if label == "trails.trailsystem":
        return world.system, world.other
    make = NEW_ROW[label]
    if label in SYSTEM_BOUND:
        return make(world.system), make(world.other)
    return make(None), None


def prepare(label: str, action: str, rows) -> None:
    """Give a status action something to change."""
    if action.startswith("set_status_"):
        target = action.removeprefix("set_status_").capitalize()
        for row in rows:
            type(row).objects.filter(pk=row.pk).update(
                status="Open" if target != "Open" else "Closed"
            )


def changed(model, row, before, response, action) -> bool:
    if action == "export_csv":
        return response.get("Content-Type", "").startswith("text/csv") and (
            row.email in response.content.decode()
        )
    return snapshot(model, row.pk) != before


ACTION_CASES = [(label, action) for label, actions in EXPECTED.items() for action in actions]


@pytest.mark.parametrize(
    ("label", "action"), ACTION_CASES, ids=[f"{label}-{action}" for label, action in ACTION_CASES]
)
def test_action(label: str, action: str):
    world = World()
    model, _ = REGISTRY[label]
    allowed = EXPECTED[label][action]
    app_label, model_name = label.split(".")
    url = reverse(f"admin:{app_label}_{model_name}_changelist")
    wrong = []
    for person in PEOPLE:
        if label == "trails.trailsystem" and person == "superAdmin":
            continue  # deleting a whole system would remove every other row of the world
        ours, theirs = rows_for(world, label, person)
        rows = [row for row in (ours, theirs) if row is not None]
        prepare(label, action, rows)
        before = {row.pk: snapshot(model, row.pk) for row in rows}
        response = world.client(person).post(
            url, {"action": action, "_selected_action": [row.pk for row in rows], "post": "yes"}
        )
        for row, is_ours in ((ours, True), (theirs, False)):
            if row is None:
                continue
            want = person in allowed and (is_ours or person == "superAdmin")
            if changed(model, row, before[row.pk], response, action) != want:
                wrong.append(
                    (
                        person,
                        "ours" if is_ours else "theirs",
                        "changed" if not want else "unchanged",
                    )
                )
    assert wrong == []
