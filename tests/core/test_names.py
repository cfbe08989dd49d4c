"""The wire formats the domain writes (the published file, the events, the error envelope)
spell a field as the API's renderer does: core.names.camel, written without the API's
camel-case package, gives every name the same spelling as that package."""

from itertools import chain

from djangorestframework_camel_case.util import camelize

from core.names import camel
from trails.fields import ACTIVITY, POINT, TRAIL, TRAIL_SYSTEM
from updates.types import TYPE_FIELDS

NAMES = [
    *(f.name for resource in (TRAIL_SYSTEM, TRAIL, ACTIVITY, POINT) for f in resource.fields),
    *chain.from_iterable(TYPE_FIELDS.values()),
    "total_trails",
    "trail_ids",
    "rules[0].trail_id",
    "snow_depth_24h",
    "a__b",
    "_private",
]


def test_every_wire_name_is_spelled_as_the_apis_renderer_spells_it():
    assert {name: camel(name) for name in NAMES} == {
        name: next(iter(camelize({name: None}))) for name in NAMES
    }
