"""The map as an installable web app: its manifest (per system: its name, its map as the
start) and the service worker at the site's root scope, which shows riders' alerts (one
notification per trail: the payload's tag) and opens the map on the trail when tapped."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from public.pages import of_public_system
from trails.models import TrailSystem


@require_GET
@cache_control(no_cache=True)
def service_worker_view(request: HttpRequest) -> HttpResponse:
    """At the root, so its scope is the whole site; never cached (a new version is taken at
    the next visit)."""
    script = render_to_string(
        "public/service-worker.js", {"icon": static("public/icons/icon-192.png")}
    )
    return HttpResponse(script, content_type="text/javascript; charset=utf-8")


@require_GET
@cache_control(public=True, max_age=3600)
@of_public_system
def manifest_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    start = reverse("public-map", args=[system.pk])
    manifest = {
        "name": system.name,
        "short_name": system.name[:12],
        "id": start,
        "start_url": start,
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#417690",
        "lang": system.language,
        "icons": [
            {
                "src": static(f"public/icons/icon-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
            }
            for size in (192, 512)
        ],
    }
    return JsonResponse(manifest, content_type="application/manifest+json")
