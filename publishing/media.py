"""Published files on local disk (STORAGE_BACKEND=local), as a bucket would serve them.

Open to every origin (spec section 4: the file needs no credentials and is not subject to the
origin allowlist), with its Cache-Control, and compressed: the copy beside the file
(publishing.storage_backends) that the reader accepts, brotli before gzip, else the file as
written (also in the moment after its compile, before its copies are made). Django's static
view sends a `.gz` or `.br` file with its Content-Encoding and the Content-Type of the name
without the suffix.
"""

from pathlib import Path

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import HttpRequest, HttpResponse
from django.utils._os import safe_join
from django.utils.cache import patch_vary_headers
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import condition, require_http_methods
from django.views.static import serve

from core.compression import accepted_encoding
from core.preflight import read_only_preflight, readable_from_any_origin, validators_exposed
from publishing.storage import ENCODED_SUFFIXES, cache_control, is_published_file


def _preflight(request: HttpRequest) -> HttpResponse:
    return readable_from_any_origin(read_only_preflight(request))


def _stored_copies(path: str) -> list[str]:
    """The encodings whose copy of the file is on disk."""
    root = Path(settings.MEDIA_ROOT)
    return [
        encoding
        for encoding, suffix in ENCODED_SUFFIXES.items()
        if (root / f"{path}{suffix}").is_file()
    ]


def _sent(request: HttpRequest, path: str) -> str:
    """The stored name sent for `path`: a published file's copy in the best encoding the
    reader accepts, else the file itself."""
    if not is_published_file(path):
        return path
    encoding = accepted_encoding(request.headers.get("Accept-Encoding", ""), _stored_copies(path))
    return f"{path}{ENCODED_SUFFIXES[encoding]}" if encoding else path


def _etag(request: HttpRequest, path: str) -> str | None:
    """The sent file's modification time and size, as web servers write their ETags: a
    rewritten file or another encoding of it has another. Only a published file has one: a
    path outside MEDIA_ROOT is never looked at (the static view answers it 404)."""
    if not is_published_file(path):
        return None
    try:
        stat = Path(safe_join(settings.MEDIA_ROOT, _sent(request, path))).stat()
    except (OSError, SuspiciousFileOperation):
        return None
    return f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"'


@csrf_exempt
@require_http_methods(["GET", "HEAD", "OPTIONS"])
@condition(etag_func=_etag)
def serve_media(request: HttpRequest, path: str) -> HttpResponse:
    """MEDIA_ROOT is read per request, not frozen at URLconf import. Django's static view
    answers If-Modified-Since; `condition` adds the ETag and answers If-None-Match."""
    if request.method == "OPTIONS":
        return _preflight(request)
    if not is_published_file(path):
        return serve(request, path, document_root=settings.MEDIA_ROOT)
    response = serve(request, _sent(request, path), document_root=settings.MEDIA_ROOT)
    response["Cache-Control"] = cache_control(path)
    patch_vary_headers(response, ["Accept-Encoding"])
    # Its copies are made once, after the compile (publishing.tasks); until then the file
    # goes as written, never compressed per request (config.middleware).
    response.sent_as_stored = True
    return validators_exposed(readable_from_any_origin(response))
