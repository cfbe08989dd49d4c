"""factory-boy factories for every model, shared by all test folders."""

from datetime import time, timedelta

import factory
from django.utils import timezone

from apikeys import keys
from apikeys.models import ApiKey, User
from reports.models import Report
from schedules.models import Schedule
from trails.geometry import extent
from trails.models import Membership, Point, Trail, TrailActivity, TrailSystem
from updates.models import Subscriber, Update


def zone_at_midday() -> str:
    """A fixed-offset zone where it is about noon now: a pass a few hours old falls on today's
    date there whatever hour the suite runs (in Boston's or Denver's zone, a run just after
    their midnight found trails groomed two hours before "yesterday")."""
    offset = 12 - timezone.now().hour
    return "Etc/GMT" if offset == 0 else f"Etc/GMT{-offset:+d}"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("uid",)

    uid = factory.Sequence(lambda n: f"uid-{n:04d}")
    email = factory.LazyAttribute(lambda u: f"{u.uid}@example.test")


class TrailSystemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TrailSystem

    name = factory.Sequence(lambda n: f"Trail System {n}")
    owner = factory.SubFactory(UserFactory)
    lat = 45.69
    lng = -113.95


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    trail_system = factory.SubFactory(TrailSystemFactory)
    user = factory.SubFactory(UserFactory)
    role = "Trustee"


def line(start_lng: float = -113.95, start_lat: float = 45.69, n: int = 3) -> dict:
    return {
        "type": "LineString",
        "coordinates": [[start_lng + i * 0.001, start_lat + i * 0.001] for i in range(n)],
    }


class TrailFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Trail

    trail_system = factory.SubFactory(TrailSystemFactory)
    name = factory.Sequence(lambda n: f"Trail {n}")
    status = "Open"
    geometry = factory.LazyFunction(line)
    distance = 0.27
    lat = 45.69
    lng = -113.95
    west = factory.LazyAttribute(lambda trail: extent(trail.geometry)[0])
    south = factory.LazyAttribute(lambda trail: extent(trail.geometry)[1])
    east = factory.LazyAttribute(lambda trail: extent(trail.geometry)[2])
    north = factory.LazyAttribute(lambda trail: extent(trail.geometry)[3])


class TrailActivityFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TrailActivity

    trail = factory.SubFactory(TrailFactory)
    value = "skiing"
    status = "Open"


class PointFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Point

    trail_system = factory.SubFactory(TrailSystemFactory)
    name = factory.Sequence(lambda n: f"Point {n}")
    marker_class = "parking"
    lat = 45.7
    lng = -113.9


class UpdateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Update

    trail_system = factory.SubFactory(TrailSystemFactory)
    type = "notice"
    description = "Lift 2 opens at 10:00."
    severity = "info"
    expiration_date = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=24))


class ScheduleFactory(factory.django.DjangoModelFactory):
    """A daily night closure (21:00 to 08:30, then back to what it was); pass `trails`."""

    class Meta:
        model = Schedule
        skip_postgeneration_save = True

    trail_system = factory.SubFactory(TrailSystemFactory)
    status = "Closed"
    repeat = "daily"
    start_time = time(21)
    end_time = time(8, 30)

    @factory.post_generation
    def trails(self, create, extracted, **kwargs):
        if create and extracted:
            self.trails.set(extracted)


class SubscriberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Subscriber

    trail_system = factory.SubFactory(TrailSystemFactory)
    email = factory.Sequence(lambda n: f"subscriber{n}@example.test")


def create_api_key(user: User, *, scopes=("read", "write"), trail_system_ids=None, **fields):
    """A stored key and its plaintext, as POST /keys would make them."""
    plaintext = keys.generate_key()
    key = ApiKey.objects.create(
        user=user,
        name=fields.pop("name", "test key"),
        prefix=plaintext[: keys.VISIBLE_PREFIX_LENGTH],
        digest=keys.digest(plaintext),
        scopes=list(scopes),
        trail_system_ids=trail_system_ids,
        **fields,
    )
    return key, plaintext


class ReportFactory(factory.django.DjangoModelFactory):
    """A rider's report near the default trail (tests.factories.line)."""

    class Meta:
        model = Report

    trail_system = factory.SubFactory(TrailSystemFactory)
    category = "fallenTree"
    description = "A pine across the trail"
    lat = 45.6905
    lng = -113.9495
    email = "rider@example.test"
