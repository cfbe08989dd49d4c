"""/feeds/schema/: the index of our feeds' JSON Schemas, and each at its own URL, with its
absolute address as its `$id`."""

from django.http import Http404, HttpRequest, JsonResponse

from core.links import absolute
from public.feed_http import public_feed
from public.feed_schemas import SCHEMAS, schema

# The schemas change only with a deployment.
SCHEMA_MAX_AGE = 3600
SCHEMA_CONTENT_TYPE = "application/schema+json"


@public_feed(ttl=SCHEMA_MAX_AGE)
def schema_index_view(request: HttpRequest) -> JsonResponse:
    listed = [
        {
            "name": name,
            "title": schema(name)["title"],
            "describes": feed.describes,
            "url": absolute("feed-schema", name),
        }
        for name, feed in SCHEMAS.items()
    ]
    return JsonResponse({"schemas": listed})


@public_feed(ttl=SCHEMA_MAX_AGE)
def schema_view(request: HttpRequest, name: str) -> JsonResponse:
    if name not in SCHEMAS:
        raise Http404("No schema of that name.")
    document = {"$id": absolute("feed-schema", name), **schema(name)}
    return JsonResponse(document, content_type=SCHEMA_CONTENT_TYPE)
