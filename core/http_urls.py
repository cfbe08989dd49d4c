"""What counts as a web address in a field that links out (notices, websites, web cams)."""

import re

# An http(s) URL with a host; the OpenAPI schema states the same pattern.
HTTP_URL_PATTERN = r"^([hH][tT][tT][pP][sS]?://[^/?#\s]+[\s\S]*)?$"
_HTTP_URL = re.compile(HTTP_URL_PATTERN)


def is_http_url(url: str) -> bool:
    return bool(url) and _HTTP_URL.match(url) is not None
