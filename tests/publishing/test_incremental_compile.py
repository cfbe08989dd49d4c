"""The incremental compile gives the bytes of a full compile, whatever happened in between.

Property-based: hypothesis generates sequences of changes to a system (statuses, activities,
geometry, trash and restore, updates that expire or are added, language, points added, changed
and removed) and after each one the compile that reuses the previous compile's encoded trails
and points, given geometry only for the trails it must encode (as the service reads them), must
equal a full compile of the same rows.
"""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from publishing.compile import (
    ActivityRow,
    Compiled,
    MissingGeometry,
    PointRow,
    SystemRows,
    TrailRow,
    UpdateRow,
    compile_rows,
    plan_system,
)

START = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
TRAILS = 6
STATUSES = ("Open", "Caution", "Closed", "None")
ACTIVITIES = ("skiing", "snowshoeing", "fat-biking")


def line(shift: int) -> dict:
    return {"type": "LineString", "coordinates": [[-72.8 + shift / 1000, 43.6], [-72.79, 43.61]]}


def multi_line(shift: int) -> dict:
    return {
        "type": "MultiLineString",
        "coordinates": [line(shift)["coordinates"], line(7)["coordinates"]],
    }


class System:
    """Rows as the database holds them: every change to a trail gives it a new version."""

    def __init__(self) -> None:
        self.language = "en"
        self.now = START
        self.versions = 0
        self.trails: dict[str, TrailRow] = {}
        self.trashed: set[str] = set()
        # Trails whose row or activities changed since the last compile (the change log).
        self.changed: set[str] = set()
        self.updates: list[UpdateRow] = []
        self.points = [
            PointRow(f"p{i}", f"Point {i}", "parking", 43.6, -72.8 + i) for i in range(2)
        ]
        for i in range(TRAILS):
            self.trails[f"t{i}"] = TrailRow(
                id=f"t{i}",
                name=f"Trail {i}",
                geometry=line(i) if i % 3 else multi_line(i),
                distance=(i + 1) / 7,  # inexact: a plain sum would depend on the order
                status=STATUSES[i % 4],
                type="Lift" if i == 5 else "Standard",
                order=i,
                activities=(ActivityRow("skiing", "Open"),),
                version=self._version(),
            )

    def _version(self) -> str:
        self.versions += 1
        return str(self.versions)

    def change_trail(self, trail_id: str, **fields) -> None:
        trail = self.trails[trail_id]
        self.trails[trail_id] = dataclasses.replace(trail, **fields, version=self._version())
        self.changed.add(trail_id)

    def rows(self, *, with_geometry: bool = True) -> SystemRows:
        live = [t for t in self.trails.values() if t.id not in self.trashed]
        live.sort(key=lambda t: (t.order, t.id))
        if not with_geometry:
            live = [dataclasses.replace(t, geometry=None) for t in live]
        # Read anew on every compile, as the service does.
        points = [dataclasses.replace(p) for p in self.points]
        return SystemRows(self.language, live, points, list(self.updates))


trail_ids = st.sampled_from([f"t{i}" for i in range(TRAILS)])
changes = st.one_of(
    st.tuples(st.just("status"), trail_ids, st.sampled_from(STATUSES)),
    st.tuples(
        st.just("activities"),
        trail_ids,
        st.lists(
            st.tuples(st.sampled_from(ACTIVITIES), st.sampled_from(STATUSES[:3])),
            max_size=3,
            unique_by=lambda a: a[0],
        ),
    ),
    st.tuples(st.just("geometry"), trail_ids, st.integers(0, 50)),
    st.tuples(st.just("name"), trail_ids, st.text(max_size=5)),
    st.tuples(st.just("order"), trail_ids, st.integers(-3, 10)),
    st.tuples(st.just("hidden"), trail_ids, st.booleans()),
    st.tuples(st.just("trash"), trail_ids, st.none()),
    st.tuples(st.just("restore"), trail_ids, st.none()),
    st.tuples(
        st.just("update"),
        st.lists(trail_ids, max_size=3, unique=True),
        st.tuples(st.sampled_from(("notice", "surfaceConditions", "snowReport")), st.booleans()),
    ),
    st.tuples(st.just("expire"), st.none(), st.integers(1, 180)),
    st.tuples(st.just("language"), st.none(), st.sampled_from(("en", "fr"))),
    st.tuples(st.just("point"), st.integers(0, 3), st.sampled_from(("Open", "Closed", None))),
)


def apply(system: System, change: tuple) -> None:
    kind, target, value = change
    if kind == "status":
        system.change_trail(target, status=value)
    elif kind == "activities":
        activities = tuple(ActivityRow(name, status) for name, status in value)
        # Activities are rows of their own: the trail's row is unchanged.
        system.trails[target] = dataclasses.replace(system.trails[target], activities=activities)
        system.changed.add(target)
    elif kind == "geometry":
        system.change_trail(target, geometry=line(value))
    elif kind in ("name", "order", "hidden"):
        system.change_trail(target, **{kind: value})
    elif kind == "trash":
        system.trashed.add(target)
        system.change_trail(target)
    elif kind == "restore" and target in system.trashed:
        system.trashed.discard(target)
        system.change_trail(target)
    elif kind == "update":
        update_type, all_trails = value
        index = len(system.updates)
        system.updates.append(
            UpdateRow(
                id=f"u{index}",
                type=update_type,
                expiration_date=system.now + timedelta(minutes=30 + 20 * index),
                updated_on=system.now - timedelta(minutes=index),
                trail_ids=tuple(target),
                all_trails=all_trails and update_type == "notice",
                description=f"Notice {index}",
                conditions=["packedPowder"],
                base_depth=float(index),
            )
        )
    elif kind == "expire":
        system.now += timedelta(minutes=value)
    elif kind == "language":
        system.language = value
    elif kind == "point":
        # Change the point at that position (add one past the end), or remove it (None).
        if value is None:
            del system.points[target : target + 1]
        elif target < len(system.points):
            system.points[target] = dataclasses.replace(system.points[target], status=value)
        else:
            system.points.append(PointRow(f"p{system.versions}", "New", "parking", 43.7, -72.7))
            system._version()


def incremental(system: System, previous: Compiled | None, *, replan: bool = False):
    """As the service does it: rows without geometry, geometry only for trails to encode;
    `replan`: planning only the trails changed since the previous compile."""
    rows = system.rows(with_geometry=False)
    if previous is None:
        plan = plan_system(rows, system.now)
    elif replan:
        plan = plan_system(
            rows,
            system.now,
            encoded_points=previous.encoded_points,
            previous=previous.plan,
            changed=system.changed,
        )
    else:
        plan = plan_system(rows, system.now, previous.encoded_trails, previous.encoded_points)
    for trail in plan.to_encode():
        trail.geometry = system.trails[trail.id].geometry
    return compile_rows(rows, system.now, plan)


@settings(max_examples=150, deadline=None)
@given(st.lists(changes, max_size=25))
def test_an_incremental_compile_is_byte_identical_to_a_full_compile(sequence):
    system = System()
    compiled = replanned = incremental(system, None)
    for change in sequence:
        apply(system, change)
        compiled = incremental(system, compiled)
        replanned = incremental(system, replanned, replan=True)
        system.changed.clear()
        full = compile_rows(system.rows(), system.now)
        assert compiled.body == full.body == replanned.body
        assert compiled.statistics == full.statistics == replanned.statistics


def test_a_trail_to_encode_without_its_geometry_is_refused():
    system = System()
    rows = system.rows(with_geometry=False)

    with pytest.raises(MissingGeometry):
        compile_rows(rows, system.now)


def test_a_changed_trail_is_the_only_one_encoded_again():
    system = System()
    encoded = incremental(system, None).encoded_trails
    system.change_trail("t2", status="Closed")

    plan = plan_system(system.rows(with_geometry=False), system.now, encoded)

    assert [trail.id for trail in plan.to_encode()] == ["t2"]
