"""`{% report_form system %}`: the map's "Report a problem" (public/report.js), with its
settings and words as JSON, so the map's view and template need one line each."""

from django import template
from django.urls import reverse

from public.report_texts import categories, report_script_texts
from reports.photos import PHOTO_BYTES_MAX, PHOTO_SIDE_MAX

register = template.Library()


@register.inclusion_tag("public/report_form.html")
def report_form(system) -> dict:
    """In the active language: the map page renders under its system's."""
    return {
        "system": system,
        "on": system.reports_per_day > 0,
        "categories": categories(),
        "config": {
            "url": reverse("public-report", args=[system.pk]),
            "systemName": system.name,
            "maxSide": PHOTO_SIDE_MAX,
            "maxBytes": PHOTO_BYTES_MAX,
            "texts": report_script_texts(),
        },
    }
