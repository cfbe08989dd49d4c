import pytest

from tests.factories import TrailFactory
from tests.fake_http import serving
from trails import tasks
from trails.elevations import provider, sampling
from trails.models import Trail


def line(*positions) -> dict:
    return {"type": "LineString", "coordinates": [list(p) for p in positions]}


def test_a_3d_line_gives_50_evenly_spaced_values_from_its_third_coordinate():
    profile = sampling.profile_from_geometry(line((-113.95, 45.69, 100), (-113.95, 45.70, 200)))

    assert len(profile) == 50
    assert profile[0] == 100 and profile[-1] == 200
    assert profile == pytest.approx([100 + 100 * k / 49 for k in range(50)], abs=0.1)


def test_spacing_follows_distance_not_vertex_count():
    # The first segment is ten times shorter than the second.
    geometry = line((0.0, 45.0, 0), (0.0, 45.001, 1000), (0.0, 45.011, 1000))

    profile = sampling.profile_from_geometry(geometry)

    # About 1223 m in all, so a value every 25 m: five of them on the first 111 m.
    assert sum(1 for v in profile if v < 1000) == 5
    assert 200 < profile[1] < 250


def test_the_parts_of_a_multiline_follow_each_other():
    geometry = {
        "type": "MultiLineString",
        "coordinates": [
            [[0.0, 45.0, 10], [0.0, 45.01, 20]],
            [[0.1, 45.0, 20], [0.1, 45.01, 30]],
        ],
    }

    profile = sampling.profile_from_geometry(geometry)

    assert profile[0] == 10 and profile[-1] == 30
    assert profile == sorted(profile)


def test_a_2d_line_has_no_profile_of_its_own():
    assert sampling.profile_from_geometry(line((0.0, 45.0), (0.0, 45.01, 5))) is None


def open_meteo_elevation(request):
    count = len(request.query["latitude"][0].split(","))
    return 200, {"elevation": [1000.0 + i for i in range(count)]}


def fake_open_meteo(settings, responder):
    return serving(
        settings,
        responder,
        "OPEN_METEO_ELEVATION_URL",
        "/v1/elevation",
        ELEVATION_PROVIDER="open-meteo",
    )


@pytest.fixture
def open_meteo(settings):
    with fake_open_meteo(settings, open_meteo_elevation) as server:
        yield server


def test_open_meteo_is_asked_in_batches_of_100_coordinates(open_meteo):
    points = [(45.0 + i / 1000, -113.0 - i / 1000) for i in range(150)]

    values = provider.OpenMeteoElevationProvider().elevations(points)

    assert [len(r.query["latitude"][0].split(",")) for r in open_meteo.requests] == [100, 50]
    first = open_meteo.requests[0]
    assert (first.method, first.path) == ("GET", "/v1/elevation")
    assert first.query["latitude"][0].split(",")[:2] == ["45.000000", "45.001000"]
    assert first.query["longitude"][0].split(",")[:2] == ["-113.000000", "-113.001000"]
    assert values == [1000.0 + i for i in range(100)] + [1000.0 + i for i in range(50)]


@pytest.mark.django_db
def test_a_geometry_change_stores_the_providers_profile_after_commit(
    open_meteo, django_capture_on_commit_callbacks
):
    trail = TrailFactory(elevations=[1.0] * 50)

    with django_capture_on_commit_callbacks(execute=True):
        tasks.request_elevations_on_commit(trail.pk)
        assert Trail.objects.get(pk=trail.pk).elevations is None

    assert Trail.objects.get(pk=trail.pk).elevations == [1000.0 + i for i in range(50)]
    [request] = open_meteo.requests
    latitudes = [float(v) for v in request.query["latitude"][0].split(",")]
    assert latitudes[0] == pytest.approx(45.69) and latitudes[-1] == pytest.approx(45.692)


@pytest.mark.django_db
def test_a_3d_geometry_needs_no_provider(open_meteo, django_capture_on_commit_callbacks):
    trail = TrailFactory(geometry=line((-113.95, 45.69, 1500), (-113.94, 45.70, 1600)))

    with django_capture_on_commit_callbacks(execute=True):
        tasks.request_elevations_on_commit(trail.pk)

    assert Trail.objects.get(pk=trail.pk).elevations[-1] == 1600
    assert open_meteo.requests == []


@pytest.mark.django_db
def test_a_failing_provider_leaves_the_profile_unknown(
    settings, django_capture_on_commit_callbacks
):
    trail = TrailFactory()
    with (
        fake_open_meteo(settings, lambda request: (503, {"error": True})),
        django_capture_on_commit_callbacks(execute=True),
    ):
        tasks.request_elevations_on_commit(trail.pk)

    assert Trail.objects.get(pk=trail.pk).elevations is None


@pytest.mark.django_db
def test_fixed_provider_end_to_end(settings, django_capture_on_commit_callbacks):
    settings.ELEVATION_PROVIDER = "fixed"
    trail = TrailFactory()

    with django_capture_on_commit_callbacks(execute=True):
        tasks.request_elevations_on_commit(trail.pk)

    profile = Trail.objects.get(pk=trail.pk).elevations
    assert len(profile) == 50 and all(isinstance(v, float) for v in profile)
