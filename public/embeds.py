"""The copy-paste HTML that puts a system's map or status list on a club's own website."""

from dataclasses import dataclass

from django.conf import settings
from django.utils.html import format_html

from public.texts import texts_for
from trails.models import TrailSystem


@dataclass(frozen=True)
class EmbedSnippet:
    label: str
    html: str


def embed_snippets(system: TrailSystem) -> list[EmbedSnippet]:
    """The map and the status list as iframes, with absolute addresses (PUBLIC_BASE_URL)."""
    texts = texts_for(system.language)
    base = settings.PUBLIC_BASE_URL
    frame = (
        '<iframe src="{}" title="{}" width="100%" height="{}" loading="lazy" '
        'style="border:0"></iframe>'
    )
    title = texts["map_of"].format(name=system.name)
    return [
        EmbedSnippet(
            texts["embed_map"], format_html(frame, f"{base}/embed/{system.pk}", title, 500)
        ),
        EmbedSnippet(
            texts["embed_list"],
            format_html(frame, f"{base}/embed/{system.pk}/list", system.name, 400),
        ),
    ]
