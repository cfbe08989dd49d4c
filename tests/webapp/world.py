"""Two trail systems with a row of every model, and a person of every role on the first.

Shared by the role matrix and the web app's page tests.
"""

from django.contrib.auth.models import Group
from django.test import Client

from core.actors import Actor, Via
from core.compiles import request_compile
from publishing.models import CompileRequest
from tests.factories import (
    MembershipFactory,
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
from trails.models import Point, Trail
from trails.trash import trash_point, trash_trail
from updates.models import Delivery
from webhooks.services import create_endpoint, send_test_event

ACTOR = Actor("uid-x", Via.WEB_APP)
PEOPLE = ["owner", "Administrator member", "trustee", "named role", "outsider", "superAdmin"]


def rows_of(system) -> dict:
    """One row of every model that belongs to a trail system, keyed by model label."""
    activity = TrailActivityFactory(trail__trail_system=system)
    trashed_trail = TrailFactory(trail_system=system, name=f"Old {system.name}")
    trash_trail(trail=trashed_trail, actor=ACTOR)
    trashed_point = PointFactory(trail_system=system)
    trash_point(point=trashed_point, actor=ACTOR)
    update = UpdateFactory(trail_system=system)
    subscriber = SubscriberFactory(trail_system=system)
    request_compile(system, "world")
    endpoint = create_endpoint(
        system=system,
        url=f"https://hooks.example.org/{system.pk}",
        events=["trail.status_changed"],
        actor=ACTOR,
    ).endpoint
    return {
        "trails.trailsystem": system,
        "trails.trail": activity.trail,
        "trails.point": PointFactory(trail_system=system),
        "trails.trashedtrail": Trail.trash.get(pk=trashed_trail.pk),
        "trails.trashedpoint": Point.trash.get(pk=trashed_point.pk),
        "updates.update": update,
        "updates.subscriber": subscriber,
        "updates.delivery": Delivery.objects.create(
            update=update, subscriber=subscriber, channel="email"
        ),
        "publishing.compilerequest": CompileRequest.objects.filter(trail_system=system).first(),
        "schedules.schedule": ScheduleFactory(trail_system=system, trails=[activity.trail]),
        "webhooks.webhookendpoint": endpoint,
        "webhooks.webhookdelivery": send_test_event(endpoint=endpoint, actor=ACTOR),
    }


class World:
    def __init__(self):
        self.system = TrailSystemFactory(name="Ours", owner=UserFactory(uid="owner"))
        self.other = TrailSystemFactory(name="Theirs", owner=UserFactory(uid="other-owner"))
        self.people = {
            "owner": self.system.owner,
            "Administrator member": MembershipFactory(
                trail_system=self.system, user__uid="admin-member", role="Administrator"
            ).user,
            "trustee": MembershipFactory(
                trail_system=self.system, user__uid="trustee", role="Trustee"
            ).user,
            "named role": MembershipFactory(
                trail_system=self.system, user__uid="groomer", role="Groomer"
            ).user,
            "outsider": UserFactory(uid="outsider"),
            "superAdmin": UserFactory(uid="super-admin", is_super_admin=True),
        }
        MembershipFactory(trail_system=self.other, user__uid="their-trustee")
        self.ours = rows_of(self.system)
        self.theirs = rows_of(self.other)
        self.keys = {uid: create_api_key(person)[0] for uid, person in self.people.items()}
        self.their_key = create_api_key(self.other.owner)[0]
        self.group = Group.objects.create(name="Groomers")
        # A failed sign-in, so the lockout pages have a row.
        Client(REMOTE_ADDR="10.9.9.9").post(
            "/admin/login/", {"username": "nobody", "password": "wrong"}
        )

    def client(self, person: str) -> Client:
        client = Client()
        client.force_login(self.people[person], backend="webapp.backends.RoleBackend")
        return client
