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


def embed_snippets(system: TrailSystem, label_language: str = "") -> list[EmbedSnippet]:
    """The map and the status list as iframes, with absolute addresses (PUBLIC_BASE_URL).

    The iframes speak the system's language; the labels the reader's (`label_language`, by
    default the system's too).
    """
    texts = texts_for(system.language)
    labels = texts_for(label_language or system.language)
    base = settings.PUBLIC_BASE_URL
    frame = (
        '<iframe src="{}" title="{}" width="100%" height="{}" loading="lazy" '
        'style="border:0"></iframe>'
    )
    title = texts["map_of"].format(name=system.name)
    return [
        EmbedSnippet(
            labels["embed_map"], format_html(frame, f"{base}/embed/{system.pk}", title, 500)
        ),
        EmbedSnippet(
            labels["embed_list"],
            format_html(frame, f"{base}/embed/{system.pk}/list", system.name, 400),
        ),
    ]
