"""`{% load public_embeds %}{% embed_snippets system %}`: the embed snippets of a system, for
pages such as the web app's system page."""

from django import template
from django.utils.translation import get_language

from public.embeds import embed_snippets as snippets_for
from trails.models import TrailSystem

register = template.Library()


@register.inclusion_tag("public/embed_snippets.html")
def embed_snippets(system: TrailSystem) -> dict:
    """Labelled in the page's language."""
    language = "fr" if (get_language() or "").startswith("fr") else "en"
    return {"snippets": snippets_for(system, label_language=language), "system": system}
