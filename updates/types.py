"""Update-type templates: labels, field metadata for forms and GET /update-types, and the
surface-condition catalog, their words marked for gettext. Template metadata never appears in
update responses."""

from dataclasses import dataclass, field

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from updates.enums import SURFACE_CONDITIONS, NoticeSeverity, UpdateType


def in_language(words: Promise, language: str) -> str:
    """Words marked for gettext, in `language` (a trail system's), whatever the active one."""
    with translation.override(language):
        return str(words)


@dataclass(frozen=True)
class FieldTemplate:
    property: str
    element: str  # input widget: text, textarea, url, number, date, time, select, multiselect
    label: Promise
    help: Promise
    required: bool = False
    options: tuple[tuple[str, Promise], ...] | None = None


@dataclass(frozen=True)
class UpdateTypeTemplate:
    type: str
    label: Promise
    description: Promise
    attach_to_trails: bool
    icon_class: str
    fields: tuple[FieldTemplate, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class SurfaceCondition:
    value: str
    label: Promise
    icon_class: str

    def entry(self, language: str = "en") -> dict:
        """The published shape: {value, text, en, fr, iconClass}: the file carries both words."""
        return {
            "value": self.value,
            "text": in_language(self.label, language),
            "en": in_language(self.label, "en"),
            "fr": in_language(self.label, "fr"),
            "iconClass": self.icon_class,
        }


_SURFACE_LABELS = {
    "compacted": pgettext_lazy("surface condition", "Compacted"),
    "very-compacted": pgettext_lazy("surface condition", "Very compacted"),
    "dry": pgettext_lazy("surface condition", "Dry"),
    "frozen-granular": pgettext_lazy("surface condition", "Frozen granular"),
    "groomed": pgettext_lazy("surface condition", "Groomed"),
    "skateGroomed": pgettext_lazy("surface condition", "Groomed for skating"),
    "classicGroomed": pgettext_lazy("surface condition", "Groomed for classic"),
    "hard-packed": pgettext_lazy("surface condition", "Hard packed"),
    "icy": pgettext_lazy("surface condition", "Icy"),
    "leaf-covered": pgettext_lazy("surface condition", "Leaf covered"),
    "light-snow": pgettext_lazy("surface condition", "Light snow"),
    "loose-granular": pgettext_lazy("surface condition", "Loose granular"),
    "maintenance-in-progress": pgettext_lazy("surface condition", "Maintenance in progress"),
    "muddy": pgettext_lazy("surface condition", "Muddy"),
    "no-snow": pgettext_lazy("surface condition", "No snow"),
    "packed-powder": pgettext_lazy("surface condition", "Packed powder"),
    "powder": pgettext_lazy("surface condition", "Powder"),
    "raked-leaves": pgettext_lazy("surface condition", "Raked leaves"),
    "snow-machine-packed": pgettext_lazy("surface condition", "Packed by snowmobile"),
    "soft": pgettext_lazy("surface condition", "Soft"),
    "very-soft": pgettext_lazy("surface condition", "Very soft"),
    "track-set": pgettext_lazy("surface condition", "Track set"),
    "variable-conditions": pgettext_lazy("surface condition", "Variable conditions"),
    "wet": pgettext_lazy("surface condition", "Wet"),
    "wet-granular": pgettext_lazy("surface condition", "Wet granular"),
    "wet-packed": pgettext_lazy("surface condition", "Wet packed"),
    "wet-snow": pgettext_lazy("surface condition", "Wet snow"),
    "windblown": pgettext_lazy("surface condition", "Windblown"),
}

SURFACE_CONDITION_CATALOG: dict[str, SurfaceCondition] = {
    value: SurfaceCondition(value, _SURFACE_LABELS[value], f"icon-surface-{value.lower()}")
    for value in SURFACE_CONDITIONS
}

_SEVERITY_LABELS = {
    NoticeSeverity.INFO: _("Information"),
    NoticeSeverity.WARNING: _("Warning"),
    NoticeSeverity.DANGER: _("Danger"),
}


def _depth(prop: str, label: Promise) -> FieldTemplate:
    return FieldTemplate(prop, "number", label, _("In the trail system's depth unit."))


UPDATE_TYPES: dict[str, UpdateTypeTemplate] = {
    UpdateType.NOTICE: UpdateTypeTemplate(
        type=UpdateType.NOTICE,
        label=_("Notice"),
        description=_(
            "A message for everyone using the trail system, optionally about some trails."
        ),
        attach_to_trails=False,
        icon_class="icon-notice",
        fields=(
            FieldTemplate(
                "description",
                "textarea",
                _("Notice"),
                _("What riders need to know."),
                required=True,
            ),
            FieldTemplate(
                "severity",
                "select",
                _("Severity"),
                _("How serious the notice is."),
                options=tuple((str(k), v) for k, v in _SEVERITY_LABELS.items()),
            ),
            FieldTemplate(
                "linkUrl",
                "url",
                _("Link"),
                _("Where to read more."),
            ),
        ),
    ),
    UpdateType.SURFACE_CONDITIONS: UpdateTypeTemplate(
        type=UpdateType.SURFACE_CONDITIONS,
        # The published label in its own words (the web app says "État de surface").
        label=pgettext_lazy("update type", "Surface conditions"),
        description=_("The state of the surface on some trails: grooming, snow, mud."),
        attach_to_trails=True,
        icon_class="icon-surface-conditions",
        fields=(
            FieldTemplate(
                "conditions",
                "multiselect",
                _("Conditions"),
                _("One or more surface conditions."),
                required=True,
                options=tuple((c.value, c.label) for c in SURFACE_CONDITION_CATALOG.values()),
            ),
        ),
    ),
    UpdateType.SNOW_REPORT: UpdateTypeTemplate(
        type=UpdateType.SNOW_REPORT,
        label=pgettext_lazy("update type", "Snow report"),
        description=_("Snow depths and recent snowfall for the whole trail system."),
        attach_to_trails=False,
        icon_class="icon-snow-report",
        fields=(
            _depth("baseDepth", _("Base depth")),
            _depth("twentyFourHours", _("Last 24 hours")),
            _depth("fourtyEightHours", _("Last 48 hours")),
            _depth("sevenDays", _("Last 7 days")),
            _depth("seasonTotal", _("Season total")),
            _depth("lastSnowAmount", _("Last snowfall")),
            _depth("upperElevationDepth", _("Depth at the summit")),
            FieldTemplate(
                "lastSnowDate",
                "date",
                _("Last snowfall date"),
                _("When it last snowed."),
            ),
            FieldTemplate(
                "lastSnowTime",
                "time",
                _("Last snowfall time"),
                _("HH:MM, 24-hour."),
            ),
            FieldTemplate(
                "lastSnowMakingDate",
                "date",
                _("Last snowmaking"),
                _("When snow was last made."),
            ),
        ),
    ),
}


# The fields each type owns, by model field name (section 2); other types' fields are ignored.
SNOW_DEPTHS = (
    "base_depth",
    "twenty_four_hours",
    "fourty_eight_hours",
    "seven_days",
    "season_total",
    "last_snow_amount",
    "upper_elevation_depth",
)
SNOW_DATES = ("last_snow_date", "last_snow_making_date")
# Each type's own fields (section 2); fields of other types in a body are ignored.
TYPE_FIELDS: dict[str, tuple[str, ...]] = {
    UpdateType.NOTICE: ("description", "severity", "link_url"),
    UpdateType.SURFACE_CONDITIONS: ("conditions",),
    UpdateType.SNOW_REPORT: (*SNOW_DEPTHS, *SNOW_DATES, "last_snow_time"),
}
