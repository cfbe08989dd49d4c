"""The fields of trail systems, trails, activities and points, described once: which of the
interfaces shows each one. The API's shapes, the web app's forms, the legacy documents and the
published file list their fields from here, in this order, so adding a field is one edit here
(plus its model column, and the API body's validation where the API may set it). Names are the
models'; the interfaces' camelCase is `core.names.camel`'s (the API renderer's spelling)
except where the spec spells a name otherwise (`shown_as`).

tests/test_field_descriptions.py checks that every model field is described or excluded here.
"""

from dataclasses import dataclass

from core.names import camel

# The interfaces that read a resource's fields:
API = "api"  # the management API's responses
API_BODY = "api-body"  # what the API's POST and PATCH bodies may set
WEB_APP = "web-app"  # the web app's form
LEGACY = "legacy"  # the legacy documents
PUBLISHED = "published"  # the published file's features
EVERYWHERE = frozenset({API, API_BODY, WEB_APP, LEGACY, PUBLISHED})


@dataclass(frozen=True)
class Field:
    name: str
    shown_in: frozenset[str] = EVERYWHERE
    shown_as: str = ""  # the interfaces' name where the spec spells it otherwise

    @property
    def key(self) -> str:
        return self.shown_as or camel(self.name)


@dataclass(frozen=True)
class Resource:
    """A resource's described fields in the order the interfaces show them, and the model
    fields no interface lists this way (each interface shapes those itself, or never shows
    them)."""

    fields: tuple[Field, ...]
    excluded: frozenset[str]

    def names(self, interface: str) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if interface in f.shown_in)

    def keys(self, interface: str) -> tuple[tuple[str, str], ...]:
        """(camelCase key, model name) of each field the interface shows."""
        return tuple((f.key, f.name) for f in self.fields if interface in f.shown_in)

    def declared(self, interface: str) -> tuple[str, ...]:
        """The names a serializer declares: the model's, camelized by the API's renderer, or
        the spec's own spelling (that field declared with the model's name as its source)."""
        return tuple(f.shown_as or f.name for f in self.fields if interface in f.shown_in)


def _shown_in(*interfaces: str) -> frozenset[str]:
    return frozenset(interfaces)


# Shaped by each interface itself: ids, the system, audit stamps, the trash.
_ROW = frozenset(
    {"id", "trail_system", "created_on", "created_by", "updated_on", "updated_by"}
    | {"trashed_on", "trashed_by"}
)

TRAIL_SYSTEM = Resource(
    fields=(
        Field("name"),
        Field("description"),
        Field("phone_number"),
        Field("website"),
        Field("language"),
        Field("depth_measurement"),
        Field("length_measurement"),
        Field("temp_measurement"),
        Field("inactive"),
        Field("hide_name"),
        Field("promote_trail_hub", shown_as="promoteTrailHUB"),
        Field("blocked", _shown_in(WEB_APP)),  # withheld from the legacy list by operators
        # Sign-up by text message: management responses and the web app, never the legacy
        # documents or the published file (their shapes are the spec's).
        Field("sms_countries", _shown_in(API, API_BODY, WEB_APP)),
        Field("sms_confirmations_per_day", _shown_in(API, API_BODY, WEB_APP)),
        # Additive: the day's budget of rider reports (reports/).
        Field("reports_per_day", _shown_in(API, API_BODY, WEB_APP)),
        # Additive: the zone of scheduled changes; the API shows the derived one when unset.
        Field("time_zone", _shown_in(API, API_BODY, WEB_APP)),
        # Additive (issue 34): off by default; the public map and the groomers feed read it.
        Field("groomers_live", _shown_in(API, API_BODY, WEB_APP)),
        # Additive: off (null) by default; the public pages read it from their own route.
        Field("unconfirmed_after_hours", _shown_in(API, API_BODY, WEB_APP)),
        # Additive (issue 45): the terms of reuse the feeds' discovery file states.
        Field("license_url", _shown_in(API, API_BODY, WEB_APP)),
        Field("attribution_name", _shown_in(API, API_BODY, WEB_APP)),
        Field("attribution_url", _shown_in(API, API_BODY, WEB_APP)),
    ),
    # Shaped apart by the interfaces that show them: the owner and plan, the location, the
    # figures the compile writes, the weather, the legacy-only presentation fields.
    excluded=frozenset(
        {"id", "owner", "subscription", "lat", "lng", "location_derived"}
        | {"created_on", "updated_on", "updated_by"}
        | {"total_trails", "open_trails", "caution_trails", "closed_trails", "total_distance"}
        | {"open_distance", "caution_distance", "activity_totals", "published_updates"}
        | {"geo_json_path", "compiled_on", "weather", "weather_updated_on"}
        | {"related_trail_systems", "icon_path", "hidden_activities"}
    ),
)

TRAIL = Resource(
    fields=(
        Field("name"),
        Field("description"),
        Field("status"),
        Field("difficulty"),
        Field("type"),
        Field("line_style"),
        # Derived from the geometry: the API and legacy documents show it with the location.
        Field("distance", _shown_in(PUBLISHED)),
        Field("hidden"),
        Field("one_way"),
        Field("one_way_reversed"),
        Field("order"),
        Field("categories"),
        # Additive, management responses only: set by the services, never by a body.
        Field("status_confirmed_on", _shown_in(API)),
        Field("status_confirmed_by", _shown_in(API)),
    ),
    # The geometry and what derives from it are shaped apart (GeoJSON, geolocation, profile).
    excluded=_ROW | {"geometry", "lat", "lng", "west", "south", "east", "north", "elevations"},
)

ACTIVITY = Resource(
    fields=(
        Field("value"),
        Field("status"),
        Field("difficulty"),
        # The web app orders a trail's activities; the interfaces show them in that order.
        Field("position", _shown_in(WEB_APP)),
    ),
    excluded=frozenset({"id", "trail"}),
)

POINT = Resource(
    fields=(
        Field("name"),
        Field("description", EVERYWHERE - {PUBLISHED}),
        Field("marker_class"),
        Field("status"),
        Field("hidden"),
        Field("wait_time"),
        Field("web_cam_url", EVERYWHERE - {PUBLISHED}),
        # Boolean or an object; edited only in the web app.
        Field("dining_options", EVERYWHERE - {API_BODY}),
    ),
    # The location: {lat, lng} in the API, a GeoPoint in legacy, the feature's geometry.
    excluded=_ROW | {"lat", "lng"},
)
