"""The legacy read interface: unauthenticated, read-only, Firestore-shaped (spec section 4)."""

from collections.abc import Callable

from django.http import HttpRequest

from legacy import cache, documents, versions
from legacy.firestore import encode
from legacy.http import Answer, UnknownRoute, legacy_route
from publishing.publisher import read_all_systems_file


def _answer(found: tuple) -> Answer:
    document, last_modified = found
    return Answer(encode(document), last_modified)


@legacy_route(public=True)
def trail_systems(request: HttpRequest) -> Answer:
    return Answer(read_all_systems_file())


def _cached(route: str, system_id: str, version_of: Callable, document_of: Callable) -> Answer:
    """The hot routes: served from the process cache while the rows are unchanged."""
    return cache.current(
        route, system_id, lambda: version_of(system_id), lambda: _answer(document_of(system_id))
    )


@legacy_route()
def trail_system(request: HttpRequest, system_id: str) -> Answer:
    return _cached("ts", system_id, versions.system_version, documents.system_document)


@legacy_route()
def trail_list(request: HttpRequest, system_id: str) -> Answer:
    return _cached("trails", system_id, versions.trails_version, documents.trails_documents)


@legacy_route()
def trail(request: HttpRequest, trail_id: str) -> Answer:
    return _answer(documents.trail(trail_id))


@legacy_route()
def point(request: HttpRequest, point_id: str) -> Answer:
    return _answer(documents.point(point_id))


@legacy_route()
def weather(request: HttpRequest, system_id: str) -> Answer:
    return _answer(documents.forecast(system_id))


@legacy_route(preflight=False)
def unknown_route(request: HttpRequest, path: str) -> Answer:
    raise UnknownRoute(f"no legacy route {path!r}")
