"""The web app's download of a system's export, for its Administrators.

A small page of its own (the admin pages are being rebuilt): the admin's own sign-in guards
it, and only an Administrator of the system (owner, Administrator member or super admin) gets
the file; anyone else signed in gets 403."""

import json

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.text import slugify

from moving.exporting import export_collection
from trails.enums import Role
from trails.models import TrailSystem
from trails.selectors import role_for


def export_download(request: HttpRequest, system_id: str) -> HttpResponse:
    system = TrailSystem.objects.filter(pk=system_id).first()
    if system is None:
        raise Http404("No such trail system.")
    if role_for(request.user, system) != Role.ADMINISTRATOR:
        raise PermissionDenied("Only an Administrator of this trail system may export it.")
    body = json.dumps(export_collection(system), ensure_ascii=False)
    response = HttpResponse(body, content_type="application/geo+json; charset=utf-8")
    name = f"{slugify(system.name) or 'trail-system'}-{system.pk}.geojson"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
