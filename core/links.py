"""Links shown to people (e-mail, embeds, the public map): http and https only."""

import re
from collections.abc import Mapping
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

from core.errors import Invalid
from core.text import WHITESPACE

# An http(s) URL with a host (no space in it, by Python's reading of a space) and without NUL
# (PostgreSQL text cannot hold it); the OpenAPI schema states the same pattern.
HTTP_URL_PATTERN = rf"^([hH][tT][tT][pP][sS]?://[^/?#{WHITESPACE}\u0000]+[^\u0000]*)?$"
_HTTP_URL = re.compile(HTTP_URL_PATTERN)


def is_http_url(url: str) -> bool:
    """Never javascript:, data: or a scheme-relative //host: those run or hide code."""
    return bool(url) and _HTTP_URL.match(url) is not None


def check_links(fields: Mapping, *names: str) -> None:
    """Every write path (API, web app, importer) refuses a link that is not http(s)."""
    for name in names:
        url = fields.get(name)
        if url and not is_http_url(url):
            raise Invalid("invalid_field", "must be an http:// or https:// URL.", field=name)


def absolute(
    url_name: str, *args: object, query: Mapping[str, str] | None = None, base: str = ""
) -> str:
    """The address of one of the site's routes as people open it from a message, a feed or
    another site: PUBLIC_BASE_URL (or another origin of this service, `base`), the route's
    path, and `query` when given."""
    url = (base or settings.PUBLIC_BASE_URL) + reverse(url_name, args=args)
    return f"{url}?{urlencode(query)}" if query else url
