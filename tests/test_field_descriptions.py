"""trails.fields describes each resource's fields once for every interface: a model field
added without a word there, or described for the API's bodies without being accepted by them,
fails here instead of going missing from some interface."""

from itertools import chain

import pytest
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets

from api.trails.serializers import (
    ActivityChangeSerializer,
    PointFieldsSerializer,
    TrailFieldsSerializer,
    TrailSystemChangeSerializer,
)
from trails.fields import ACTIVITY, API_BODY, POINT, TRAIL, TRAIL_SYSTEM, WEB_APP
from trails.models import Point, Trail, TrailActivity, TrailSystem
from updates.models import Update
from updates.types import TYPE_FIELDS


@pytest.mark.parametrize(
    ("resource", "model"),
    [(TRAIL_SYSTEM, TrailSystem), (TRAIL, Trail), (ACTIVITY, TrailActivity), (POINT, Point)],
)
def test_every_model_field_is_described_or_explicitly_excluded(resource, model):
    columns = {field.name for field in model._meta.concrete_fields}
    described = {field.name for field in resource.fields}
    assert columns - described - resource.excluded == set(), "describe it in trails/fields.py"
    assert (described | resource.excluded) - columns == set(), "no such model field"
    assert described & resource.excluded == set()


@pytest.mark.parametrize(
    ("resource", "serializer", "located"),
    [
        (TRAIL_SYSTEM, TrailSystemChangeSerializer, set()),
        (TRAIL, TrailFieldsSerializer, set()),
        (ACTIVITY, ActivityChangeSerializer, set()),
        (POINT, PointFieldsSerializer, {"lat", "lng"}),
    ],
)
def test_the_api_bodies_accept_exactly_the_fields_described_for_them(resource, serializer, located):
    assert set(serializer().fields) == set(resource.declared(API_BODY)) | located


# What every update has, shaped by each interface itself; the rest are its type's own fields.
UPDATE_ROW = {
    "id", "trail_system", "type", "trails", "all_trails", "expiration_date", "notify", "source",
    "created_on", "created_by", "updated_on", "updated_by", "fan_out_queued_on",
}  # fmt: skip


def test_every_update_field_is_a_type_field_or_common_to_every_update():
    own = set(chain.from_iterable(TYPE_FIELDS.values()))
    columns = {field.name for field in Update._meta.get_fields() if field.concrete}
    assert columns - own - UPDATE_ROW == set(), "a type's field: updates/types.py TYPE_FIELDS"
    assert own - columns == set()


def test_the_trail_system_page_shows_every_field_described_for_the_web_app():
    """Its fields are grouped by hand into sections; a described field must be in one."""
    shown = flatten_fieldsets(admin.site._registry[TrailSystem].fieldsets)
    assert set(TRAIL_SYSTEM.names(WEB_APP)) <= set(shown)
