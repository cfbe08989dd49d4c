"""OpenStreetMap-derived GeoJSON (data/*_osm.geojson) -> the published-file format.

Pure functions: the result goes through `trails.importing` like any other published file.
Choices where OSM and our model differ:

- A piste or trail way that belongs to a piste/ski route relation is left out: the route,
  a MultiLineString trail, stands for it, so the map does not show the same run twice.
  Hiking and MTB routes (often partial long-distance routes) absorb nothing.
- Unnamed pistes and lifts get a name such as "Unnamed nordic trail 3"; unnamed `trail`-kind
  ways (forest roads and tracks) are skipped. Polygons are skipped.
- Every trail starts Open with its activities Open; the demo sets a mix of statuses.
"""

import difflib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from trails.enums import Difficulty, LineStyle, TrailStatus, TrailType

DIFFICULTIES = {
    "novice": Difficulty.CIRCLE,
    "easy": Difficulty.CIRCLE,
    "intermediate": Difficulty.SQUARE,
    "advanced": Difficulty.DIAMOND,
    "expert": Difficulty.DOUBLE_DIAMOND,
}
ABSORBING_ROUTES = {"piste", "ski"}
CATEGORY = {"alpine": "Alpine", "nordic": "Nordic", "lift": "Lifts", "summer": "Summer"}


def _values(value: str | None) -> list[str]:
    """OSM multi-values: `nordic;hike` -> ["nordic", "hike"]."""
    return [v.strip().lower() for v in (value or "").split(";") if v.strip()]


def difficulty(osm_difficulty: str | None) -> str:
    return str(DIFFICULTIES.get((osm_difficulty or "").strip().lower(), Difficulty.NOT_RATED))


def nordic_activities(grooming: str | None) -> list[str]:
    """classic -> nordic-classic, skating -> nordic-skate; both when both or when unknown."""
    grooming = (grooming or "").lower()
    found = [
        activity
        for word, activity in (("classic", "nordic-classic"), ("skating", "nordic-skate"))
        if word in grooming
    ]
    return found or ["nordic-classic", "nordic-skate"]


def piste_activities(piste_type: str | None, grooming: str | None) -> list[str]:
    activities: list[str] = []
    for kind in _values(piste_type):
        if kind in ("downhill", "snow_park"):
            activities.append("skiing")
        elif kind == "nordic":
            activities += nordic_activities(grooming)
        elif kind == "hike":
            activities.append("hiking")
    return list(dict.fromkeys(activities))


def _route_activities(route: str | None) -> list[str]:
    return {"hiking": ["hiking"], "foot": ["hiking"], "mtb": ["mountain-biking"]}.get(
        route or "", []
    )


def _tags(properties: dict) -> dict:
    return properties.get("tags") or {}


def activities(properties: dict) -> list[str]:
    """Activity keys for one OSM feature (see the module docstring for the mapping)."""
    kind = properties.get("kind")
    if kind == "lift":
        return []
    found = piste_activities(properties.get("piste_type"), properties.get("grooming"))
    if kind == "trail":
        found.append("hiking")
        if "mtb:scale" in _tags(properties):
            found.append("mountain-biking")
    if kind == "route":
        found += _route_activities(properties.get("route"))
    return list(dict.fromkeys(found))


def trail_difficulty(properties: dict) -> str:
    if "snow_park" in _values(properties.get("piste_type")):
        return Difficulty.TERRAIN_PARK
    return difficulty(properties.get("difficulty"))


def _is_one_way(properties: dict) -> bool:
    if properties.get("kind") == "lift":
        return True
    tags = _tags(properties)
    return "yes" in (properties.get("oneway"), tags.get("piste:oneway"), tags.get("oneway"))


def category(properties: dict) -> str:
    kind = properties.get("kind")
    if kind == "lift":
        return CATEGORY["lift"]
    types = _values(properties.get("piste_type"))
    if "nordic" in types:
        return CATEGORY["nordic"]
    if kind == "piste" or (kind == "route" and properties.get("route") in ABSORBING_ROUTES):
        return CATEGORY["alpine"]
    return CATEGORY["summer"]


def _unnamed_label(properties: dict) -> str:
    kind = properties.get("kind")
    if kind == "lift":
        return "lift"
    return {"Nordic": "nordic trail", "Alpine": "run"}.get(category(properties), "trail")


def _absorbed(properties: dict) -> bool:
    return properties.get("kind") in ("piste", "trail") and any(
        route.get("route") in ABSORBING_ROUTES for route in properties.get("routes") or []
    )


def osm_id(feature: dict) -> str:
    """`way/123` -> `osm-way-123`: stable ids, so the demo's trails keep their ids."""
    return "osm-" + str(feature.get("id") or feature["properties"]["id"]).replace("/", "-")


SKIP_POLYGON = "area (polygon), not a line"
SKIP_ABSORBED = "way of a piste/ski route (imported as the route)"
SKIP_UNNAMED_TRAIL = "unnamed path or track"
SKIP_OTHER_AREA = "in another ski area"
SKIP_NOT_OSM = "not an OpenStreetMap feature (no properties)"


@dataclass
class Conversion:
    """A published-file FeatureCollection, with what was kept (by kind) and skipped (by
    reason) to show the person importing."""

    collection: dict
    kept: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)

    def summary(self) -> str:
        kept = ", ".join(f"{count} {kind}" for kind, count in sorted(self.kept.items()))
        lines = [f"OpenStreetMap features kept: {kept or 'none'}."]
        lines += [f"  skipped {count}: {reason}" for reason, count in self.skipped.most_common()]
        return "\n".join(lines)


def looks_like_osm(collection) -> bool:
    """Whether a FeatureCollection is an OpenStreetMap export (ids such as `way/123`)."""
    features = collection.get("features") if isinstance(collection, dict) else None
    return any(
        isinstance(f, dict) and str(f.get("id", "")).startswith(("way/", "relation/", "node/"))
        for f in (features if isinstance(features, list) else [])[:50]
    )


def ski_areas(collection: dict) -> list[str]:
    """The ski areas a file covers: its `ski_areas` member, else those its features name."""
    listed = collection.get("ski_areas")
    if isinstance(listed, list):
        return [str(name) for name in listed]
    names = {(f.get("properties") or {}).get("ski_area") for f in collection.get("features", [])}
    return sorted(name for name in names if isinstance(name, str))


def find_ski_area(collection: dict, wanted: str) -> str:
    """The file's ski area named `wanted` (any case); ValueError naming the closest ones."""
    known = ski_areas(collection)
    for name in known:
        if name.casefold() == wanted.strip().casefold():
            return name
    close = difflib.get_close_matches(wanted, known, n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise ValueError(f"No ski area {wanted!r} in this file ({len(known)} areas).{hint}")


def split_by_area(collection: dict) -> dict[str, dict]:
    """A FeatureCollection per ski area of the file (by name), in the order of ski_areas();
    features that name no listed area are left out."""
    areas: dict[str, list] = {name: [] for name in ski_areas(collection)}
    for feature in collection.get("features", []):
        properties = feature.get("properties") if isinstance(feature, dict) else None
        area = properties.get("ski_area") if isinstance(properties, dict) else None
        if area in areas:
            areas[area].append(feature)
    return {name: {"type": "FeatureCollection", "features": f} for name, f in areas.items()}


def convert(collection: dict) -> dict:
    """An OSM FeatureCollection -> a published-file FeatureCollection of trail features."""
    return convert_with_report(collection).collection


def convert_with_report(
    collection: dict,
    ski_area: str | None = None,
    progress: Callable[[Iterable], Iterable] = iter,
) -> Conversion:
    """convert(), keeping only `ski_area`'s features when given, counting what was kept and
    skipped; `progress` wraps the features (a progress bar on large files)."""
    conversion = Conversion({"type": "FeatureCollection", "features": []})
    features = conversion.collection["features"]
    unnamed: dict[str, int] = {}
    for feature in progress(collection["features"]):
        properties = feature.get("properties")
        geometry = feature.get("geometry") or {}
        reason = _skip_reason(properties, geometry, ski_area)
        if reason:
            conversion.skipped[reason] += 1
            continue
        name = (properties.get("name") or "").strip()
        if not name:
            label = _unnamed_label(properties)
            unnamed[label] = unnamed.get(label, 0) + 1
            name = f"Unnamed {label} {unnamed[label]}"
        conversion.kept[_kind_label(properties)] += 1
        features += trail_features(feature, name, order=len(features))
    return conversion


def _skip_reason(properties, geometry: dict, ski_area: str | None) -> str | None:
    if not isinstance(properties, dict):
        return SKIP_NOT_OSM
    if ski_area is not None and properties.get("ski_area") != ski_area:
        return SKIP_OTHER_AREA
    if geometry.get("type") not in ("LineString", "MultiLineString"):
        return SKIP_POLYGON
    if _absorbed(properties):
        return SKIP_ABSORBED
    if properties.get("kind") == "trail" and not (properties.get("name") or "").strip():
        return SKIP_UNNAMED_TRAIL
    return None


def _kind_label(properties: dict) -> str:
    kind = properties.get("kind")
    if kind == "route":
        return f"{properties.get('route') or 'other'} routes"
    return {"piste": "pistes", "lift": "lifts", "trail": "paths and tracks"}.get(kind, "others")


def trail_features(feature: dict, name: str, order: int) -> list[dict]:
    """One published feature per line: a MultiLineString becomes features sharing a trailId."""
    properties = feature["properties"]
    geometry = feature["geometry"]
    parts = (
        geometry["coordinates"]
        if geometry["type"] == "MultiLineString"
        else [geometry["coordinates"]]
    )
    is_lift = properties.get("kind") == "lift"
    published = {
        "trailId": osm_id(feature),
        "name": name[:200],
        "description": _tags(properties).get("description", ""),
        "status": TrailStatus.OPEN,
        "difficulty": trail_difficulty(properties),
        "type": TrailType.LIFT if is_lift else TrailType.STANDARD,
        "lineStyle": LineStyle.DASHED if category(properties) == "Summer" else LineStyle.SOLID,
        "hidden": False,
        "oneWay": _is_one_way(properties),
        "oneWayReversed": False,
        "order": order,
        "categories": [category(properties)],
        "activities": [{"value": a, "status": "Open"} for a in activities(properties)],
    }
    return [
        {
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": part},
            "properties": {**published, "showInLists": i == 0},
        }
        for i, part in enumerate(parts)
    ]
