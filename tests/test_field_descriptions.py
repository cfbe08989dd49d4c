"""trails.fields describes each resource's fields once for every interface: a model field
added without a word there, or described for the API's bodies without being accepted by them,
fails here instead of going missing from some interface."""

import pytest

from api.trails.serializers import (
    ActivityChangeSerializer,
    PointFieldsSerializer,
    TrailFieldsSerializer,
)
from trails.fields import ACTIVITY, API_BODY, POINT, TRAIL
from trails.models import Point, Trail, TrailActivity


@pytest.mark.parametrize(
    ("resource", "model"), [(TRAIL, Trail), (ACTIVITY, TrailActivity), (POINT, Point)]
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
        (TRAIL, TrailFieldsSerializer, set()),
        (ACTIVITY, ActivityChangeSerializer, set()),
        (POINT, PointFieldsSerializer, {"lat", "lng"}),
    ],
)
def test_the_api_bodies_accept_exactly_the_fields_described_for_them(resource, serializer, located):
    assert set(serializer().fields) == set(resource.names(API_BODY)) | located
