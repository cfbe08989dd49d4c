"""A rider's rules as the interface sends them, checked against the system: each names a
trail of the system (or none: all of it), an activity of that trail (or none), at least one
kind of change, and for `groomed` an optional surface condition, for `snow` a depth."""

import re
from dataclasses import dataclass
from datetime import time

from alerts.texts import KINDS
from core.errors import Invalid, NotFound
from trails.models import Trail, TrailSystem
from updates.enums import SURFACE_CONDITIONS

RULES_MAX = 50
SNOW_CM_MAX = 500.0
CLOCK = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


@dataclass(frozen=True)
class RuleSpec:
    trail_id: str | None
    activity: str
    on: list[str]
    condition: str
    snow_cm: float | None


def _field(index: int, name: str) -> str:
    return f"rules[{index}].{name}"


def clean_rules(system: TrailSystem, raw) -> list[RuleSpec]:
    if not isinstance(raw, list) or not raw:
        raise Invalid("missing_field", "at least one rule is required.", field="rules")
    if len(raw) > RULES_MAX:
        raise Invalid("invalid_field", f"at most {RULES_MAX} rules.", field="rules")
    named = [rule.get("trailId") for rule in raw if isinstance(rule, dict)]
    trails = {
        trail.pk: trail
        for trail in Trail.objects.filter(
            trail_system=system, pk__in={i for i in named if isinstance(i, str)}
        ).prefetch_related("activities")
    }
    return [_clean_rule(index, rule, trails) for index, rule in enumerate(raw)]


def _clean_rule(index: int, rule, trails: dict[str, Trail]) -> RuleSpec:
    if not isinstance(rule, dict):
        raise Invalid("invalid_field", "must be an object.", field=f"rules[{index}]")
    on = rule.get("on")
    if not isinstance(on, list) or not on:
        raise Invalid(
            "missing_field", f"name at least one of {', '.join(KINDS)}.", field=_field(index, "on")
        )
    unknown = [kind for kind in on if kind not in KINDS]
    if unknown:
        raise Invalid(
            "invalid_field",
            f"{str(unknown[0])[:40]!r} is not one of {', '.join(KINDS)}.",
            field=_field(index, "on"),
        )
    trail_id = rule.get("trailId")
    trail = None
    if trail_id is not None:
        if not isinstance(trail_id, str) or trail_id not in trails:
            raise NotFound(
                "not_found", "no such trail in this system.", field=_field(index, "trail_id")
            )
        trail = trails[trail_id]
    activity = rule.get("activity") or ""
    if not isinstance(activity, str) or len(activity) > 40:
        raise Invalid(
            "invalid_field", "must be an activity's key.", field=_field(index, "activity")
        )
    if activity and trail is not None:
        known = [a.value for a in trail.activities.all()]
        if activity not in known:
            raise Invalid(
                "invalid_field",
                f"{trail.name} has no activity {activity!r}"
                + (f" (it has {', '.join(known)})." if known else "."),
                field=_field(index, "activity"),
            )
    condition = rule.get("condition") or ""
    if condition and condition not in SURFACE_CONDITIONS:
        raise Invalid(
            "invalid_field",
            f"{str(condition)[:40]!r} is not a surface-conditions value.",
            field=_field(index, "condition"),
        )
    snow_cm = rule.get("snowCm")
    if snow_cm is not None and (
        isinstance(snow_cm, bool)
        or not isinstance(snow_cm, int | float)
        or not 0 <= snow_cm <= SNOW_CM_MAX
    ):
        raise Invalid(
            "invalid_field",
            f"must be a number from 0 to {SNOW_CM_MAX:g}.",
            field=_field(index, "snow_cm"),
        )
    return RuleSpec(
        trail_id=trail_id,
        activity=activity,
        on=list(dict.fromkeys(on)),
        condition=condition,
        snow_cm=float(snow_cm) if snow_cm is not None else None,
    )


def clean_quiet_hours(raw) -> tuple[time | None, time | None]:
    """{"from": "HH:MM", "to": "HH:MM"} in the system's zone; null: none."""
    if raw is None:
        return None, None
    if not isinstance(raw, dict):
        raise Invalid(
            "invalid_field", 'must be {"from": "HH:MM", "to": "HH:MM"}.', field="quiet_hours"
        )
    bounds = []
    for name in ("from", "to"):
        value = raw.get(name)
        if not isinstance(value, str) or not CLOCK.match(value):
            raise Invalid("invalid_field", "must be HH:MM (24-hour).", field=f"quiet_hours.{name}")
        bounds.append(time.fromisoformat(value))
    if bounds[0] == bounds[1]:
        raise Invalid("invalid_field", "must differ from `from`.", field="quiet_hours.to")
    return bounds[0], bounds[1]
