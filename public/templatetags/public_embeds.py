"""`{% load public_embeds %}{% embed_snippets system %}`: the embed snippets of a system, for
pages such as the web app's system page."""

from django import template

from public.embeds import embed_snippets as snippets_for
from trails.models import TrailSystem

register = template.Library()


@register.inclusion_tag("public/embed_snippets.html")
def embed_snippets(system: TrailSystem, language: str = "") -> dict:
    """Labelled in `language` (the reading page's) when given, else in the system's."""
    return {"snippets": snippets_for(system, label_language=language), "system": system}
