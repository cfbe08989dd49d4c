import re

import pytest
from django.db import IntegrityError

from publishing.models import CompileRequest
from tests.factories import (
    MembershipFactory,
    PointFactory,
    SubscriberFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    UserFactory,
    create_api_key,
)
from trails.models import Point, Trail
from updates.models import Subscriber

pytestmark = pytest.mark.django_db


def test_generated_ids_are_20_random_alphanumeric_characters():
    objects = [
        TrailSystemFactory(),
        TrailFactory(),
        PointFactory(),
        UpdateFactory(),
        SubscriberFactory(),
        create_api_key(UserFactory())[0],
        CompileRequest.objects.create(trail_system=TrailSystemFactory()),
    ]
    ids = [obj.pk for obj in objects]
    assert all(re.fullmatch(r"[A-Za-z0-9]{20}", pk) for pk in ids)
    assert len(set(ids)) == len(ids)


def test_imported_ids_of_other_lengths_are_kept():
    trail = TrailFactory(id="legacy-trail-id-0001-abcdefghijklmnop")
    assert Trail.objects.get(pk="legacy-trail-id-0001-abcdefghijklmnop") == trail


def test_trashed_trails_and_points_are_invisible_to_default_managers():
    trail, point = TrailFactory(), PointFactory()
    TrailFactory(trail_system=trail.trail_system)
    Trail.objects.filter(pk=trail.pk).update(trashed_on="2026-01-01T00:00:00Z")
    Point.objects.filter(pk=point.pk).update(trashed_on="2026-01-01T00:00:00Z")

    assert not Trail.objects.filter(pk=trail.pk).exists()
    assert not Point.objects.filter(pk=point.pk).exists()
    assert list(Trail.trash.all()) == [trail]
    assert list(Point.trash.all()) == [point]
    assert Trail.all_objects.filter(pk=trail.pk).exists()
    assert trail.trail_system.trails.count() == 1


def test_an_activity_appears_once_per_trail():
    activity = TrailActivityFactory(value="hiking")
    TrailActivityFactory(value="hiking")  # another trail: fine
    with pytest.raises(IntegrityError):
        TrailActivityFactory(trail=activity.trail, value="hiking")


def test_a_subscriber_needs_an_email_or_a_phone():
    with pytest.raises(IntegrityError):
        Subscriber.objects.create(trail_system=TrailSystemFactory(), email="", phone="")


def test_a_user_has_one_role_per_system():
    membership = MembershipFactory(role="Trustee")
    with pytest.raises(IntegrityError):
        MembershipFactory(
            trail_system=membership.trail_system, user=membership.user, role="Administrator"
        )
