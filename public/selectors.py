"""Reads for the public pages: the systems on the public map and their published data."""

from typing import NamedTuple

import orjson
from django.core.files.storage import default_storage

from closures.documents import closures_file
from closures.models import PublishedClosures
from publishing.selectors import load_active_systems
from trails.models import TrailSystem


def public_system(system_id: str) -> TrailSystem | None:
    """The system if it is on the public map (not inactive); None otherwise."""
    return TrailSystem.objects.filter(pk=system_id, inactive=False).first()


def index_rows() -> list[dict]:
    """Name, open and total trails of every active system, from the rows the all-systems
    file is built from (so a system compiled a minute ago is listed, not in three hours)."""
    return [
        {
            "id": row["id"],
            "name": row["name"],
            "open": row["open_trails"],
            "total": row["open_trails"] + row["caution_trails"] + row["closed_trails"],
        }
        for row in load_active_systems()
    ]


def read_published(path: str) -> dict | None:
    """A published file's FeatureCollection; None when it is gone (replaced long enough ago)."""
    try:
        with default_storage.open(path, "rb") as stored:
            return orjson.loads(stored.read())
    except FileNotFoundError:
        return None


def _published_collection(system: TrailSystem) -> dict:
    """The current published file; read again once if a compile replaced it meanwhile."""
    for _attempt in range(2):
        if not system.geo_json_path:
            break
        collection = read_published(system.geo_json_path)
        if collection is not None:
            return collection
        system.refresh_from_db(fields=["geo_json_path"])
    return {"type": "FeatureCollection", "features": []}


def published_trails(system: TrailSystem) -> list[dict]:
    """The visible trails of the published file, lifts last, each once (showInLists)."""
    collection = _published_collection(system)
    trails = [
        feature["properties"]
        for feature in collection["features"]
        if "trailId" in feature["properties"]
        and feature["properties"].get("showInLists")
        and not feature["properties"].get("hidden")
    ]
    return sorted(trails, key=lambda trail: trail.get("type") == "Lift")


def published_closures(system_ids: list[str]) -> dict[str, bytes]:
    """The closures file of each system as stored; a system none was written for yet (no
    compile, no closure since) has had no closure in effect: the empty file."""
    stored = dict(
        PublishedClosures.objects.filter(trail_system__in=system_ids).values_list(
            "trail_system_id", "body"
        )
    )
    missing = [system_id for system_id in system_ids if system_id not in stored]
    for system_id, language in TrailSystem.objects.filter(pk__in=missing).values_list(
        "pk", "language"
    ):
        stored[system_id] = closures_file(system_id, [], {}, language)
    return {system_id: bytes(body) for system_id, body in stored.items()}


class StoredFeed(NamedTuple):
    schema: str  # its schema's name (public.feed_schemas)
    where: str  # where the body was read from, for an operator
    body: bytes | None  # None: not written yet


def stored_feeds(system: TrailSystem) -> list[StoredFeed]:
    """The system's feeds of our own shapes as they are stored now, whether it is on the
    public map or not."""
    path = system.geo_json_path
    body = None
    if path:
        try:
            with default_storage.open(path, "rb") as stored:
                body = stored.read()
        except FileNotFoundError:
            pass
    closures = (
        PublishedClosures.objects.filter(trail_system=system).values_list("body", flat=True).first()
    )
    return [
        StoredFeed("published-map", path or "the published map file", body),
        StoredFeed(
            "closures",
            f"/feeds/{system.pk}/closures.geojson",
            None if closures is None else bytes(closures),
        ),
    ]
