"""The spec's endpoint summary (section 4) as data, and a world to call it in.

The access matrix and the malformed-input tests are generated from SUMMARY_TABLE, a verbatim
copy of the spec's table, so a row is never written out by hand twice.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone
from rest_framework.test import APIClient

from apikeys import keys
from core.actors import Actor, Via
from grooming.trackers import create_tracker
from tests.conftest import token_for
from tests.factories import (
    MembershipFactory,
    PointFactory,
    ReportFactory,
    ScheduleFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    UserFactory,
    create_api_key,
)
from webhooks.services import create_endpoint

BASE = "/api/v1"

SUMMARY_TABLE = """
| GET | / | none | none |
| GET | /update-types | none | none |
| GET | /me | any | read |
| GET | /keys | ID token | none |
| POST | /keys | ID token | none |
| DELETE | /keys/:id | ID token | none |
| GET | /trail-systems | any | read |
| GET | /trail-systems/:id | any | read |
| PATCH | /trail-systems/:id | Administrator | write |
| POST | /trail-systems/:id/compile | any | write |
| GET | /trail-systems/:id/weather | any | read |
| GET | /trail-systems/:id/trails | any | read |
| POST | /trail-systems/:id/trails | any | write |
| POST | /trail-systems/:id/trails/status | any | write |
| GET | /trails/:id | any | read |
| PATCH | /trails/:id | any | write |
| DELETE | /trails/:id | any | write |
| GET | /trail-systems/:id/points | any | read |
| POST | /trail-systems/:id/points | any | write |
| GET | /points/:id | any | read |
| PATCH | /points/:id | any | write |
| DELETE | /points/:id | any | write |
| GET | /trail-systems/:id/updates | any | read |
| POST | /trail-systems/:id/updates | any | write |
| GET | /updates/:id | any | read |
| PATCH | /updates/:id | any | write |
| DELETE | /updates/:id | any | write |
"""
# Routes beyond the spec's v1 table (DESIGN.md, "Fixed points"), held to the same rules.
ADDITIVE_TABLE = """
| GET | /trails/:id/history | any | read |
| GET | /points/:id/history | any | read |
| POST | /trail-systems/:id/grooming-tracks | any | write |
| GET | /trail-systems/:id/grooming | any | read |
| GET | /trail-systems/:id/grooming-log | any | read |
| POST | /trail-systems/:id/grooming-log/approvals | Administrator | write |
| GET | /trail-systems/:id/schedules | any | read |
| POST | /trail-systems/:id/schedules | any | write |
| GET | /trail-systems/:id/schedules/:scheduleId | any | read |
| PATCH | /trail-systems/:id/schedules/:scheduleId | any | write |
| DELETE | /trail-systems/:id/schedules/:scheduleId | any | write |
| GET | /trail-systems/:id/webhooks | Administrator | write |
| POST | /trail-systems/:id/webhooks | Administrator | write |
| GET | /trail-systems/:id/webhooks/:webhookId | Administrator | write |
| PATCH | /trail-systems/:id/webhooks/:webhookId | Administrator | write |
| DELETE | /trail-systems/:id/webhooks/:webhookId | Administrator | write |
| POST | /trail-systems/:id/webhooks/:webhookId/rotate-secret | Administrator | write |
| POST | /trail-systems/:id/webhooks/:webhookId/resume | Administrator | write |
| GET | /trail-systems/:id/trackers | any | read |
| POST | /trail-systems/:id/trackers | any | write |
| DELETE | /trackers/:id | any | write |
| GET | /trail-systems/:id/reports | any | read |
| GET | /reports/:id | any | read |
| PATCH | /reports/:id | any | write |
"""


@dataclass(frozen=True)
class Row:
    method: str
    path: str
    credential: str
    scope: str

    def __str__(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def resource(self) -> str:
        """What the path's :id names: system, trail, point, update or key ("" for none)."""
        if ":id" not in self.path:
            return ""
        return {
            "trail-systems": "system",
            "trails": "trail",
            "points": "point",
            "updates": "update",
            "keys": "key",
            "trackers": "tracker",
            "reports": "report",
        }[self.path.split("/")[1]]

    @property
    def on_a_system(self) -> bool:
        return self.resource in {"system", "trail", "point", "update", "tracker", "report"}

    @property
    def success_status(self) -> int:
        if self.path.endswith("/compile"):
            return 202
        creates = self.method == "POST" and not self.path.endswith(
            ("/status", "/rotate-secret", "/resume")
        )
        return 201 if creates else 200


def parse_summary(table: str) -> list[Row]:
    rows = []
    for line in table.strip().splitlines():
        method, path, credential, scope = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append(Row(method, path, credential, scope))
    return rows


ROWS = parse_summary(SUMMARY_TABLE) + parse_summary(ADDITIVE_TABLE)
WRITE_ROWS = [row for row in ROWS if row.method != "GET"]

LINE = {"type": "LineString", "coordinates": [[-113.9, 45.6], [-113.91, 45.61]]}

# Minimal valid bodies, so that the matrix tests access and not validation.
BODIES: dict[str, dict] = {
    "POST /keys": {"name": "ci"},
    "PATCH /trail-systems/:id": {"name": "Renamed"},
    "POST /trail-systems/:id/trails": {"name": "T", "geometry": LINE},
    "POST /trail-systems/:id/trails/status": {"status": "Closed", "trailIds": ["{trail}"]},
    "PATCH /trails/:id": {"status": "Closed"},
    "POST /trail-systems/:id/points": {
        "name": "P",
        "markerClass": "parking",
        "lat": 45.6,
        "lng": -113.9,
    },
    "PATCH /points/:id": {"status": "Closed"},
    "POST /trail-systems/:id/updates": {"type": "notice", "description": "Groomers out tonight."},
    "PATCH /updates/:id": {"description": "Groomers out at dawn."},
    # Along the world's trail (tests.factories.line), so the track grooms it.
    "POST /trail-systems/:id/schedules": {
        "trailIds": ["{trail}"],
        "status": "Closed",
        "repeat": "daily",
        "startTime": "21:00",
    },
    "PATCH /trail-systems/:id/schedules/:scheduleId": {"reason": "Night grooming"},
    "POST /trail-systems/:id/webhooks": {
        "url": "https://hooks.example.org/trails",
        "events": ["trail.status_changed"],
    },
    "PATCH /trail-systems/:id/webhooks/:webhookId": {"active": False},
    "POST /trail-systems/:id/trackers": {"name": "PistenBully 1"},
    "PATCH /reports/:id": {"state": "resolved", "note": "Cleared this morning."},
    "POST /trail-systems/:id/grooming-log/approvals": {"from": "2026-01-05", "to": "2026-01-11"},
    "POST /trail-systems/:id/grooming-tracks": {
        "type": "LineString",
        "coordinates": [[-113.95, 45.69], [-113.949, 45.691], [-113.948, 45.692]],
    },
}


class World:
    """One trail system with every kind of caller, and one object of each kind in it."""

    def __init__(self):
        self.owner = UserFactory(uid="owner")
        self.trustee = UserFactory(uid="trustee")
        self.admin_member = UserFactory(uid="admin-member")
        self.stranger = UserFactory(uid="stranger")
        self.super_admin = UserFactory(uid="super-admin", is_super_admin=True)
        self.system = TrailSystemFactory(name="Lost Trail", owner=self.owner)
        self.other_system = TrailSystemFactory(name="Other", owner=self.owner)
        MembershipFactory(trail_system=self.system, user=self.trustee, role="Trustee")
        MembershipFactory(trail_system=self.system, user=self.admin_member, role="Administrator")
        self.trail = TrailFactory(trail_system=self.system)
        self.point = PointFactory(trail_system=self.system)
        self.update = UpdateFactory(trail_system=self.system)
        self.schedule = ScheduleFactory(trail_system=self.system, trails=[self.trail])
        self.owner_key, _ = create_api_key(self.owner, name="to revoke")
        self.report = ReportFactory(trail_system=self.system, trail=self.trail)
        self.webhook = create_endpoint(
            system=self.system,
            url="https://hooks.example.org/world",
            events=["update.created"],
            actor=Actor(self.owner.uid, Via.WEB_APP),
        ).endpoint
        self.tracker = create_tracker(
            system=self.system, name="Snowcat", actor=Actor(self.owner.uid, Via.WEB_APP)
        ).tracker
        self.ids = {
            "tracker": self.tracker.pk,
            "system": self.system.pk,
            "trail": self.trail.pk,
            "point": self.point.pk,
            "update": self.update.pk,
            "key": self.owner_key.pk,
            "schedule": self.schedule.pk,
            "report": self.report.pk,
        }

    def url(self, row: Row) -> str:
        path = row.path.replace(":scheduleId", self.ids["schedule"])
        path = path.replace(":webhookId", self.webhook.pk)
        path = path.replace(":id", self.ids[row.resource]) if row.resource else path
        return BASE + path

    def body(self, row: Row) -> dict | None:
        body = BODIES.get(str(row))
        if body is None:
            return None
        return {
            name: [item.format(**self.ids) for item in value] if name == "trailIds" else value
            for name, value in body.items()
        }

    def credential(self, kind: str) -> str | None:
        """The Authorization value a caller of this kind sends (None: no header)."""
        owner = self.owner
        match kind:
            case "none":
                return None
            case "garbage":
                return "Bearer not-a-token"
            case "unknown key":
                return f"Bearer {keys.generate_key()}"
            case "revoked key":
                return f"Bearer {create_api_key(owner, revoked=True)[1]}"
            case "expired key":
                expired = timezone.now() - timedelta(days=1)
                return f"Bearer {create_api_key(owner, expires_at=expired)[1]}"
            case "read-only key":
                return f"Bearer {create_api_key(owner, scopes=['read'])[1]}"
            case "key restricted to another system":
                restricted = create_api_key(owner, trail_system_ids=[self.other_system.pk])
                return f"Bearer {restricted[1]}"
        user = {
            "ID token of a non-manager": self.stranger,
            "ID token of a trustee": self.trustee,
            "ID token of an Administrator member": self.admin_member,
            "ID token of the owner": self.owner,
            "ID token of a superAdmin": self.super_admin,
        }[kind]
        return f"Bearer {token_for(user)}"

    def client(self, kind: str) -> APIClient:
        client = APIClient()
        credential = self.credential(kind)
        if credential:
            client.credentials(HTTP_AUTHORIZATION=credential)
        return client


def call(client: APIClient, method: str, url: str, body=None, **extra):
    send = getattr(client, method.lower())
    if body is None:
        return send(url, **extra)
    return send(url, body, format="json", **extra)


def assert_envelope(response, status: int | None = None, code: str | None = None) -> dict:
    """The response is exactly {"error": {"code", "message"}}, optionally with this status/code."""
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    payload = response.json()
    assert set(payload) == {"error"}, payload
    assert set(payload["error"]) == {"code", "message"}, payload
    assert isinstance(payload["error"]["message"], str) and payload["error"]["message"]
    if status is not None:
        assert response.status_code == status, payload
    if code is not None:
        assert payload["error"]["code"] == code, payload
    return payload["error"]
