"""The activity catalog: machine keys with their labels (en, fr) and icon class.

Activities are added to trails in the web app; the API may only change their status and
difficulty. A key not in this catalog is refused.
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError


@dataclass(frozen=True)
class Activity:
    value: str
    en: str
    fr: str
    icon_class: str

    def label(self, language: str = "en") -> str:
        return self.fr if language == "fr" else self.en


CATALOG: dict[str, Activity] = {
    a.value: a
    for a in [
        Activity("skiing", "Skiing", "Ski alpin", "icon-skiing"),
        Activity("nordic-classic", "Classic skiing", "Ski de fond classique", "icon-nordic"),
        Activity("nordic-skate", "Skate skiing", "Ski de fond pas de patin", "icon-skate-ski"),
        Activity("snowshoeing", "Snowshoeing", "Raquette", "icon-snowshoeing"),
        Activity("fat-biking", "Fat biking", "Vélo à pneus surdimensionnés", "icon-fat-bike"),
        Activity("mountain-biking", "Mountain biking", "Vélo de montagne", "icon-mtb"),
        Activity("hiking", "Hiking", "Randonnée pédestre", "icon-hiking"),
        Activity("running", "Running", "Course à pied", "icon-running"),
        Activity("walking", "Walking", "Marche", "icon-walking"),
        Activity("horseback-riding", "Horseback riding", "Équitation", "icon-horse"),
        Activity("snowmobiling", "Snowmobiling", "Motoneige", "icon-snowmobile"),
    ]
}


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
