"""From a recorded event to the changes it holds, as riders' rules name them: which trails
(none: the whole system), which activity, which kind, and the item a message tells."""

from dataclasses import dataclass

from django.utils.translation import gettext

from alerts.models import AlertEvent
from alerts.texts import CAUTION, CLOSES, GROOMED, NOTICES, OPENS, SNOW, Item
from core import events
from trails.models import TrailSystem
from updates.enums import UpdateType

# Trail closures (their own app) announce these, with trailId, trailName, activity, reason
# and danger (a closure for danger is never held by quiet hours).
CLOSURE_STARTED = "closure.started"
CLOSURE_ENDED = "closure.ended"
FOLLOWED_EVENTS = frozenset(
    {
        events.TRAIL_STATUS_CHANGED,
        events.GROOMING_RECORDED,
        events.UPDATE_CREATED,
        CLOSURE_STARTED,
        CLOSURE_ENDED,
    }
)
CM_PER_INCH = 2.54
NOTE_MAX = 300
NOTICE_SEVERITIES = ("warning", "danger")


@dataclass(frozen=True)
class Change:
    kind: str
    item: Item
    # The trails it concerns; None: every trail (a rule for any trail matches).
    trail_ids: frozenset[str] | None
    activity: str | None = None
    condition: str = ""
    snow_cm: float = 0.0

    @property
    def danger(self) -> bool:
        return bool(self.item.get("danger"))


def _status_kind(old: str | None, new: str | None) -> str | None:
    if new == "Closed":
        return CLOSES
    if new == "Caution":
        return CAUTION
    if new == "Open" and old in ("Closed", "Caution"):
        return OPENS
    return None


def changes_of(event: AlertEvent, system: TrailSystem) -> list[Change]:
    data = event.data
    if event.type == events.TRAIL_STATUS_CHANGED:
        kind = _status_kind(data.get("from"), data.get("to"))
        return [_trail_change(kind, data, status=data.get("to"))] if kind else []
    if event.type in (CLOSURE_STARTED, CLOSURE_ENDED):
        kind = CLOSES if event.type == CLOSURE_STARTED else OPENS
        status = "Closed" if kind == CLOSES else "Open"
        return [_trail_change(kind, data, status=status, note=data.get("reason") or "")]
    if event.type == events.GROOMING_RECORDED:
        condition = data.get("condition") or ""
        return [
            Change(
                GROOMED,
                Item(
                    kind=GROOMED,
                    trailId=trail["trailId"],
                    trailName=trail.get("name") or "",
                    activity=None,
                    status=None,
                    note=condition,
                ),
                frozenset({trail["trailId"]}),
                condition=condition,
            )
            for trail in data.get("trails", [])
        ]
    if event.type == events.UPDATE_CREATED:
        return _update_changes(data, system)
    return []


def _trail_change(kind: str, data: dict, *, status: str | None, note: str = "") -> Change:
    item = Item(
        kind=kind,
        trailId=data.get("trailId"),
        trailName=data.get("trailName") or "",
        activity=data.get("activity"),
        status=status,
        note=str(note)[:NOTE_MAX],
    )
    if data.get("danger"):
        item["danger"] = True
    return Change(kind, item, frozenset({data.get("trailId")}), activity=data.get("activity"))


def _update_changes(data: dict, system: TrailSystem) -> list[Change]:
    if data.get("type") == UpdateType.NOTICE and data.get("severity") in NOTICE_SEVERITIES:
        item = Item(
            kind=NOTICES,
            trailId=None,
            trailName="",
            activity=None,
            status=None,
            note=str(data.get("description") or "")[:NOTE_MAX],
        )
        if data["severity"] == "danger":
            item["danger"] = True
        trails = None if data.get("allTrails") else frozenset(data.get("trailIds") or [])
        return [Change(NOTICES, item, trails)]
    fresh = data.get("twentyFourHours")
    if data.get("type") == UpdateType.SNOW_REPORT and fresh:
        inches = system.depth_measurement == "inches"
        unit = "in" if inches else "cm"
        note = gettext("%(depth)g %(unit)s of new snow in 24 hours") % {
            "depth": fresh,
            "unit": unit,
        }
        item = Item(kind=SNOW, trailId=None, trailName="", activity=None, status=None, note=note)
        return [Change(SNOW, item, None, snow_cm=fresh * CM_PER_INCH if inches else fresh)]
    return []
