"""The copy-paste HTML that puts a system's map or status list on a club's own website."""

from dataclasses import dataclass

from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext

from core.links import absolute
from public.texts import map_title
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
    frame = (
        '<iframe src="{}" title="{}" width="100%" height="{}" loading="lazy" '
        'style="border:0"></iframe>'
    )
    with translation.override(system.language):
        title = map_title(system.name)
    with translation.override(label_language or system.language):
        return [
            EmbedSnippet(
                gettext("Map"), format_html(frame, absolute("public-embed", system.pk), title, 500)
            ),
            EmbedSnippet(
                gettext("Status list"),
                format_html(frame, absolute("public-embed-list", system.pk), system.name, 400),
            ),
        ]
