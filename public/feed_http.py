"""How every feed under /feeds/ answers HTTP, in one decorator (`public_feed`): GET, HEAD and
a CORS preflight only; readable from any origin, its ETag exposed to scripts; kept by readers
and caches no longer than the feed's `ttl` (Cache-Control max-age, which the discovery file
lists too); an `ETag` and a `Last-Modified` on every answer, and 304 to a conditional request
whose validator still holds (Django's ConditionalGetMiddleware, as `conditional_page`).

The ETag is a digest of the body, so it changes exactly when the feed does. Most feeds are
computed per request and cannot say when they last changed, so Last-Modified is when this
path first answered its current body (kept in the cache beside the ETag it belongs to): a body
that changes back to an earlier one gets a new date, and a change within the same second
still moves the date on. Without the cache (Redis down) a feed answers without it; the ETag
alone still validates.
"""

import hashlib
from collections.abc import Callable
from functools import wraps

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.cache import patch_cache_control, set_response_etag
from django.utils.http import http_date
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import conditional_page, require_http_methods
from redis.exceptions import RedisError

from core.preflight import read_only_preflight, readable_from_any_origin, validators_exposed

# How long the service remembers when a feed's body was first answered. A feed unchanged for
# longer gets a new, later Last-Modified: readers fetch it once more, nothing is missed.
FIRST_ANSWERED_MEMORY_SECONDS = 7 * 24 * 3600

View = Callable[..., HttpResponse]


def _memory_key(request: HttpRequest) -> str:
    """By path, not query: one key per feed whatever readers put in their query strings (a
    feed's filtered answers share it, and each change between them only moves the date on,
    which costs a reader one more full answer, never a missed change)."""
    digest = hashlib.sha256(request.path.encode()).hexdigest()
    return f"feeds:first-answered:{digest}"


def _first_answered(request: HttpRequest, etag: str) -> int | None:
    """When this URL first answered the body of `etag` (epoch seconds), without a break."""
    now = int(timezone.now().timestamp())
    key = _memory_key(request)
    try:
        remembered = cache.get(key)
        if remembered and remembered[0] == etag:
            return remembered[1]
        since = max(now, remembered[1] + 1) if remembered else now
        cache.set(key, (etag, since), FIRST_ANSWERED_MEMORY_SECONDS)
    except RedisError:
        return None
    return since


def public_feed(*, ttl: int) -> Callable[[View], View]:
    """Wrap a feed's view (whose 200 carries the whole body) as every feed answers; `ttl` in
    seconds, also read by the discovery file (`feed_ttl` of the view)."""

    def decorate(view: View) -> View:
        @conditional_page
        @wraps(view)
        def validated(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            response = view(request, *args, **kwargs)
            if response.status_code != 200:
                return response
            patch_cache_control(response, public=True, max_age=ttl)
            etag = set_response_etag(response).get("ETag")
            since = etag and _first_answered(request, etag)
            if since:
                response["Last-Modified"] = http_date(since)
            return response

        @csrf_exempt
        @require_http_methods(["GET", "HEAD", "OPTIONS"])
        @wraps(view)
        def feed(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method == "OPTIONS":
                return readable_from_any_origin(read_only_preflight(request))
            return validators_exposed(readable_from_any_origin(validated(request, *args, **kwargs)))

        feed.feed_ttl = ttl
        return feed

    return decorate
