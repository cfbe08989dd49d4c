from django.urls import path, re_path, register_converter

from core.ids import ID_MAX_LENGTH
from legacy import views


class IdConverter:
    """An id as stored: up to ID_MAX_LENGTH characters, no slash or control character.
    Anything else falls through to the unknown-route answer without touching the database."""

    regex = rf"[^/\x00-\x1f\x7f]{{1,{ID_MAX_LENGTH}}}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IdConverter, "legacy_id")

urlpatterns = [
    path("trail-systems", views.trail_systems),
    path("ts/<legacy_id:system_id>", views.trail_system),
    path("trails/<legacy_id:system_id>", views.trail_list),
    path("trail/<legacy_id:trail_id>", views.trail),
    path("point/<legacy_id:point_id>", views.point),
    path("weather/<legacy_id:system_id>", views.weather),
    re_path(r"^(?P<path>.*)$", views.unknown_route),
]
