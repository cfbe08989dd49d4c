import pytest
from django.core.exceptions import ImproperlyConfigured

from publishing import weather
from publishing.tasks import collect_weather
from tests.factories import TrailSystemFactory
from tests.fake_http import serving
from trails.models import TrailSystem

pytestmark = pytest.mark.django_db

SNAPSHOT_KEYS = {
    "observedAt",
    "temperature",
    "apparentTemperature",
    "humidity",
    "windSpeed",
    "windGusts",
    "windDirection",
    "precipitation",
    "snowfall",
    "cloudCover",
    "weatherCode",
    "description",
    "isDay",
    "source",
}


def open_meteo_reply(request):
    """Open-Meteo's answer to a `current=` request, metric units (its defaults): an object for
    one location, a list of them for several."""
    latitudes = request.query["latitude"][0].split(",")
    longitudes = request.query["longitude"][0].split(",")
    entries = [
        location(float(lat), float(lng)) for lat, lng in zip(latitudes, longitudes, strict=True)
    ]
    return 200, entries[0] if len(entries) == 1 else entries


def location(lat: float, lng: float) -> dict:
    return {
        "latitude": lat,
        "longitude": lng,
        "generationtime_ms": 0.05,
        "utc_offset_seconds": 0,
        "timezone": "GMT",
        "timezone_abbreviation": "GMT",
        "elevation": 1620.0,
        "current_units": {
            "time": "iso8601",
            "interval": "seconds",
            "temperature_2m": "°C",
            "relative_humidity_2m": "%",
            "apparent_temperature": "°C",
            "is_day": "",
            "precipitation": "mm",
            "snowfall": "cm",
            "weather_code": "wmo code",
            "cloud_cover": "%",
            "wind_speed_10m": "km/h",
            "wind_direction_10m": "°",
            "wind_gusts_10m": "km/h",
        },
        "current": {
            "time": "2026-01-14T09:45",
            "interval": 900,
            "temperature_2m": round(lat - 52, 1),
            "relative_humidity_2m": 91,
            "apparent_temperature": -11.8,
            "is_day": 1,
            "precipitation": 0.2,
            "snowfall": 0.14,
            "weather_code": 73,
            "cloud_cover": 100,
            "wind_speed_10m": 17.6,
            "wind_direction_10m": 275,
            "wind_gusts_10m": 38.2,
        },
    }


def fake_open_meteo(settings, responder):
    return serving(
        settings, responder, "OPEN_METEO_URL", "/v1/forecast", WEATHER_PROVIDER="open-meteo"
    )


@pytest.fixture
def open_meteo(settings):
    with fake_open_meteo(settings, open_meteo_reply) as server:
        yield server


def test_open_meteo_is_asked_for_current_conditions_at_the_system(open_meteo):
    system = TrailSystemFactory(subscription="pro", lat=45.69, lng=-113.95)

    weather.collect([system])

    [request] = open_meteo.requests
    assert (request.method, request.path) == ("GET", "/v1/forecast")
    assert request.query["latitude"] == ["45.6900"]
    assert request.query["longitude"] == ["-113.9500"]
    asked = set(request.query["current"][0].split(","))
    assert asked == set(weather.OPEN_METEO_CURRENT.values())
    assert request.query["timezone"] == ["GMT"]


def test_the_snapshot_is_stored_in_metric_current_conditions_format(open_meteo):
    system = TrailSystemFactory(subscription="premium", lat=45.69)

    assert weather.collect([system]) == 1

    system.refresh_from_db()
    assert system.weather == {
        "observedAt": "2026-01-14T09:45:00.000Z",
        "temperature": -6.3,
        "apparentTemperature": -11.8,
        "humidity": 91,
        "windSpeed": 17.6,
        "windGusts": 38.2,
        "windDirection": 275,
        "precipitation": 0.2,
        "snowfall": 0.14,
        "cloudCover": 100,
        "weatherCode": 73,
        "description": "Moderate snow fall",
        "isDay": True,
        "source": "open-meteo",
    }
    assert system.weather_updated_on is not None


def test_many_systems_are_asked_in_batches_and_each_gets_its_own_conditions(open_meteo):
    systems = [
        TrailSystemFactory(subscription="pro", lat=40 + n / 10, lng=-110)
        for n in range(weather.BATCH_SIZE + 1)
    ]

    assert weather.collect(systems) == len(systems)

    sizes = [len(r.query["latitude"][0].split(",")) for r in open_meteo.requests]
    assert sizes == [weather.BATCH_SIZE, 1]
    for system in systems:
        system.refresh_from_db()
        assert system.weather["temperature"] == round(system.lat - 52, 1)


def test_only_active_systems_on_a_weather_tier_are_collected(open_meteo):
    paid = TrailSystemFactory(subscription="pro")
    free = TrailSystemFactory(subscription="free")
    inactive = TrailSystemFactory(subscription="pro", inactive=True)

    assert collect_weather() == 1

    assert TrailSystem.objects.get(pk=paid.pk).weather["source"] == "open-meteo"
    assert TrailSystem.objects.get(pk=free.pk).weather is None
    assert TrailSystem.objects.get(pk=inactive.pk).weather is None
    assert len(open_meteo.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        (503, {"error": True, "reason": "Service unavailable"}),
        (400, {"error": True, "reason": "Cannot initialize WeatherVariable from invalid String"}),
        (200, {"latitude": 45.0}),
    ],
)
def test_a_failing_provider_leaves_the_previous_snapshot(settings, reply):
    previous = {"observedAt": "2026-01-14T08:00:00.000Z", "temperature": -5.0}
    system = TrailSystemFactory(subscription="pro", weather=previous)
    with fake_open_meteo(settings, lambda request: reply):
        assert collect_weather() == 0

    system.refresh_from_db()
    assert system.weather == previous and system.weather_updated_on is None


def test_fixed_provider_end_to_end(settings):
    settings.WEATHER_PROVIDER = "fixed"
    system = TrailSystemFactory(subscription="pro")

    collect_weather.delay()

    system.refresh_from_db()
    assert set(system.weather) == SNAPSHOT_KEYS
    assert system.weather["source"] == "fixed"
    assert weather.weather_for(system) == system.weather


def test_weather_is_shown_only_for_weather_tiers():
    snapshot = {"temperature": 1.0}

    assert weather.weather_for(TrailSystemFactory(subscription="free", weather=snapshot)) is None
    assert weather.weather_for(TrailSystemFactory(subscription="pro", weather=None)) is None


def test_weather_is_collected_hourly_by_beat(settings):
    entry = next(
        e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == collect_weather.name
    )
    assert entry["schedule"].minute == {5} and len(entry["schedule"].hour) == 24


def test_an_unknown_provider_name_is_a_clear_configuration_error(settings):
    settings.WEATHER_PROVIDER = "openmeteo"

    with pytest.raises(ImproperlyConfigured, match="fixed, open-meteo"):
        collect_weather()
