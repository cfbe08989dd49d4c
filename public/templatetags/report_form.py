"""`{% report_form system %}`: the map's "Report a problem" (public/report.js), with its
settings and words as JSON, so the map's view and template need one line each."""

from django import template
from django.urls import reverse

from public.report_texts import CATEGORIES, report_texts
from reports.photos import PHOTO_BYTES_MAX, PHOTO_SIDE_MAX

register = template.Library()


@register.inclusion_tag("public/report_form.html")
def report_form(system) -> dict:
    texts = report_texts(system.language)
    return {
        "system": system,
        "t": texts,
        "on": system.reports_per_day > 0,
        "categories": [(value, texts[value]) for value in CATEGORIES],
        "config": {
            "url": reverse("public-report", args=[system.pk]),
            "systemName": system.name,
            "maxSide": PHOTO_SIDE_MAX,
            "maxBytes": PHOTO_BYTES_MAX,
            "texts": texts,
        },
    }
