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
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from django.views.static import serve

from core.compression import accepted_encoding
from core.preflight import read_only_preflight, readable_from_any_origin
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


@csrf_exempt
@require_http_methods(["GET", "HEAD", "OPTIONS"])
def serve_media(request: HttpRequest, path: str) -> HttpResponse:
    """MEDIA_ROOT is read per request, not frozen at URLconf import."""
    if request.method == "OPTIONS":
        return _preflight(request)
    if not is_published_file(path):
        return serve(request, path, document_root=settings.MEDIA_ROOT)
    encoding = accepted_encoding(request.headers.get("Accept-Encoding", ""), _stored_copies(path))
    sent = f"{path}{ENCODED_SUFFIXES[encoding]}" if encoding else path
    response = serve(request, sent, document_root=settings.MEDIA_ROOT)
    response["Cache-Control"] = cache_control(path)
    patch_vary_headers(response, ["Accept-Encoding"])
    # Its copies are made once, after the compile (publishing.tasks); until then the file
    # goes as written, never compressed per request (config.middleware).
    response.sent_as_stored = True
    return readable_from_any_origin(response)
