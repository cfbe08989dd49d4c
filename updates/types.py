"""Update-type templates: labels (en, fr), field metadata for forms and GET /update-types,
and the surface-condition catalog. Template metadata never appears in update responses."""

from dataclasses import dataclass, field

from updates.enums import SURFACE_CONDITIONS, NoticeSeverity, UpdateType


@dataclass(frozen=True)
class Text:
    en: str
    fr: str

    def get(self, language: str = "en") -> str:
        return self.fr if language == "fr" else self.en


@dataclass(frozen=True)
class FieldTemplate:
    property: str
    element: str  # input widget: text, textarea, url, number, date, time, select, multiselect
    label: Text
    help: Text
    required: bool = False
    options: tuple[tuple[str, Text], ...] | None = None


@dataclass(frozen=True)
class UpdateTypeTemplate:
    type: str
    label: Text
    description: Text
    attach_to_trails: bool
    icon_class: str
    fields: tuple[FieldTemplate, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class SurfaceCondition:
    value: str
    en: str
    fr: str
    icon_class: str

    def entry(self, language: str = "en") -> dict:
        """The published shape: {value, text, en, fr, iconClass}."""
        return {
            "value": self.value,
            "text": self.fr if language == "fr" else self.en,
            "en": self.en,
            "fr": self.fr,
            "iconClass": self.icon_class,
        }


_SURFACE_LABELS = {
    "compacted": ("Compacted", "Compacté"),
    "very-compacted": ("Very compacted", "Très compacté"),
    "dry": ("Dry", "Sec"),
    "frozen-granular": ("Frozen granular", "Granuleux gelé"),
    "groomed": ("Groomed", "Damé"),
    "skateGroomed": ("Groomed for skating", "Damé pour le pas de patin"),
    "classicGroomed": ("Groomed for classic", "Damé pour le classique"),
    "hard-packed": ("Hard packed", "Neige dure"),
    "icy": ("Icy", "Glacé"),
    "leaf-covered": ("Leaf covered", "Couvert de feuilles"),
    "light-snow": ("Light snow", "Neige légère"),
    "loose-granular": ("Loose granular", "Granuleux"),
    "maintenance-in-progress": ("Maintenance in progress", "Entretien en cours"),
    "muddy": ("Muddy", "Boueux"),
    "no-snow": ("No snow", "Pas de neige"),
    "packed-powder": ("Packed powder", "Poudreuse damée"),
    "powder": ("Powder", "Poudreuse"),
    "raked-leaves": ("Raked leaves", "Feuilles ratissées"),
    "snow-machine-packed": ("Packed by snowmobile", "Tassé à la motoneige"),
    "soft": ("Soft", "Mou"),
    "very-soft": ("Very soft", "Très mou"),
    "track-set": ("Track set", "Tracé"),
    "variable-conditions": ("Variable conditions", "Conditions variables"),
    "wet": ("Wet", "Mouillé"),
    "wet-granular": ("Wet granular", "Granuleux mouillé"),
    "wet-packed": ("Wet packed", "Mouillé tassé"),
    "wet-snow": ("Wet snow", "Neige mouillée"),
    "windblown": ("Windblown", "Soufflé par le vent"),
}

SURFACE_CONDITION_CATALOG: dict[str, SurfaceCondition] = {
    value: SurfaceCondition(value, *_SURFACE_LABELS[value], f"icon-surface-{value.lower()}")
    for value in SURFACE_CONDITIONS
}

_SEVERITY_LABELS = {
    NoticeSeverity.INFO: Text("Information", "Information"),
    NoticeSeverity.WARNING: Text("Warning", "Avertissement"),
    NoticeSeverity.DANGER: Text("Danger", "Danger"),
}


def _depth(prop: str, en: str, fr: str) -> FieldTemplate:
    return FieldTemplate(
        prop,
        "number",
        Text(en, fr),
        Text("In the trail system's depth unit.", "Dans l'unité de profondeur du réseau."),
    )


UPDATE_TYPES: dict[str, UpdateTypeTemplate] = {
    UpdateType.NOTICE: UpdateTypeTemplate(
        type=UpdateType.NOTICE,
        label=Text("Notice", "Avis"),
        description=Text(
            "A message for everyone using the trail system, optionally about some trails.",
            "Un message pour tous les usagers du réseau, éventuellement sur certains sentiers.",
        ),
        attach_to_trails=False,
        icon_class="icon-notice",
        fields=(
            FieldTemplate(
                "description",
                "textarea",
                Text("Notice", "Avis"),
                Text("What riders need to know.", "Ce que les usagers doivent savoir."),
                required=True,
            ),
            FieldTemplate(
                "severity",
                "select",
                Text("Severity", "Gravité"),
                Text("How serious the notice is.", "La gravité de l'avis."),
                options=tuple((str(k), v) for k, v in _SEVERITY_LABELS.items()),
            ),
            FieldTemplate(
                "linkUrl",
                "url",
                Text("Link", "Lien"),
                Text("Where to read more.", "Pour en savoir plus."),
            ),
        ),
    ),
    UpdateType.SURFACE_CONDITIONS: UpdateTypeTemplate(
        type=UpdateType.SURFACE_CONDITIONS,
        label=Text("Surface conditions", "Conditions de surface"),
        description=Text(
            "The state of the surface on some trails: grooming, snow, mud.",
            "L'état de la surface de certains sentiers : damage, neige, boue.",
        ),
        attach_to_trails=True,
        icon_class="icon-surface-conditions",
        fields=(
            FieldTemplate(
                "conditions",
                "multiselect",
                Text("Conditions", "Conditions"),
                Text("One or more surface conditions.", "Une ou plusieurs conditions."),
                required=True,
                options=tuple(
                    (c.value, Text(c.en, c.fr)) for c in SURFACE_CONDITION_CATALOG.values()
                ),
            ),
        ),
    ),
    UpdateType.SNOW_REPORT: UpdateTypeTemplate(
        type=UpdateType.SNOW_REPORT,
        label=Text("Snow report", "Bulletin de neige"),
        description=Text(
            "Snow depths and recent snowfall for the whole trail system.",
            "Hauteurs de neige et chutes récentes pour tout le réseau.",
        ),
        attach_to_trails=False,
        icon_class="icon-snow-report",
        fields=(
            _depth("baseDepth", "Base depth", "Neige au sol"),
            _depth("twentyFourHours", "Last 24 hours", "Dernières 24 heures"),
            _depth("fourtyEightHours", "Last 48 hours", "Dernières 48 heures"),
            _depth("sevenDays", "Last 7 days", "7 derniers jours"),
            _depth("seasonTotal", "Season total", "Total de la saison"),
            _depth("lastSnowAmount", "Last snowfall", "Dernière chute"),
            _depth("upperElevationDepth", "Depth at the summit", "Neige au sommet"),
            FieldTemplate(
                "lastSnowDate",
                "date",
                Text("Last snowfall date", "Date de la dernière chute"),
                Text("When it last snowed.", "Quand il a neigé la dernière fois."),
            ),
            FieldTemplate(
                "lastSnowTime",
                "time",
                Text("Last snowfall time", "Heure de la dernière chute"),
                Text("HH:MM, 24-hour.", "HH:MM, sur 24 heures."),
            ),
            FieldTemplate(
                "lastSnowMakingDate",
                "date",
                Text("Last snowmaking", "Dernière production de neige"),
                Text("When snow was last made.", "Dernière production de neige."),
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
