"""The site's own pages for an unknown address, a refused one and a server error (handler404,
handler403 and handler500): the web app's look under /admin/, the public pages' elsewhere.
The management and legacy APIs answer their own errors (api.errors, legacy.views) and never
reach these.
"""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views import defaults

from public import views as public_views


def _in_web_app(request: HttpRequest) -> bool:
    return request.path.startswith(reverse("admin:index"))


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _in_web_app(request):
        return admin.site.page_not_found(request)
    return public_views.page_not_found(request)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _in_web_app(request):
        return admin.site.permission_denied(request)
    return defaults.permission_denied(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _in_web_app(request):
        return admin.site.server_error()
    return public_views.server_error()
