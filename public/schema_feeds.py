"""/feeds/schema/: the index of our feeds' JSON Schemas, and each at its own URL, with its
absolute address as its `$id`."""

from django.http import Http404, HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from core.preflight import readable_from_any_origin
from public.feed_schemas import SCHEMAS, schema
from public.feeds import _absolute

# The schemas change only with a deployment.
SCHEMA_MAX_AGE = 3600
SCHEMA_CONTENT_TYPE = "application/schema+json"


@require_GET
@cache_control(public=True, max_age=SCHEMA_MAX_AGE)
def schema_index_view(request: HttpRequest) -> JsonResponse:
    listed = [
        {
            "name": name,
            "title": schema(name)["title"],
            "describes": feed.describes,
            "url": _absolute(reverse("feed-schema", args=[name])),
        }
        for name, feed in SCHEMAS.items()
    ]
    return readable_from_any_origin(JsonResponse({"schemas": listed}))


@require_GET
@cache_control(public=True, max_age=SCHEMA_MAX_AGE)
def schema_view(request: HttpRequest, name: str) -> JsonResponse:
    if name not in SCHEMAS:
        raise Http404("No schema of that name.")
    document = {"$id": _absolute(reverse("feed-schema", args=[name])), **schema(name)}
    return readable_from_any_origin(JsonResponse(document, content_type=SCHEMA_CONTENT_TYPE))
