"""The activity catalog: machine keys with their labels (gettext's) and icon class.

Activities are added to trails in the web app; the API may only change their status and
difficulty. A key not in this catalog is refused.
"""

from dataclasses import dataclass
from functools import cache

from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Activity:
    value: str
    words: Promise
    icon_class: str

    def label(self, language: str = "en") -> str:
        """Its words in `language` (a trail system's), whatever the active one."""
        return _labels(language)[self.value]


CATALOG: dict[str, Activity] = {
    a.value: a
    for a in [
        Activity("skiing", _("Skiing"), "icon-skiing"),
        Activity("nordic-classic", _("Classic skiing"), "icon-nordic"),
        Activity("nordic-skate", _("Skate skiing"), "icon-skate-ski"),
        Activity("snowshoeing", _("Snowshoeing"), "icon-snowshoeing"),
        Activity("fat-biking", _("Fat biking"), "icon-fat-bike"),
        Activity("mountain-biking", _("Mountain biking"), "icon-mtb"),
        Activity("hiking", _("Hiking"), "icon-hiking"),
        Activity("running", _("Running"), "icon-running"),
        Activity("walking", _("Walking"), "icon-walking"),
        Activity("horseback-riding", _("Horseback riding"), "icon-horse"),
        Activity("snowmobiling", _("Snowmobiling"), "icon-snowmobile"),
    ]
}


@cache
def _labels(language: str) -> dict[str, str]:
    """Every activity's words in `language`, translated once per process: a compile shows
    them on every trail, and the catalogs do not change while it runs."""
    with translation.override(language):
        return {value: str(activity.words) for value, activity in CATALOG.items()}


def get_activity(value: object) -> Activity:
    """The catalog entry; any other value, a non-string from an import file included, is refused."""
    known = CATALOG.get(value) if isinstance(value, str) else None
    if known is None:
        raise ValidationError(
            f"unknown activity {value!r}; known activities: {', '.join(sorted(CATALOG))}."
        )
    return known


def describe(value: str, language: str) -> dict:
    """{value, label, iconClass}; a key missing from the catalog is shown as its own label."""
    known = CATALOG.get(value)
    return {
        "value": value,
        "label": known.label(language) if known else value,
        "iconClass": known.icon_class if known else "",
    }


def activity_entry(value: str, status: str, difficulty: str, language: str) -> dict:
    """An activity as every interface shows it: {value, label, iconClass, status, difficulty?}."""
    entry = {**describe(value, language), "status": status}
    if difficulty:
        entry["difficulty"] = difficulty
    return entry
