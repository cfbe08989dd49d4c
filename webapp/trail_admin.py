"""Trail list and page helpers of the web app: filters, the bulk status actions, the map."""

from collections import defaultdict

from django import forms
from django.conf import settings
from django.contrib import admin
from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError
from trails.activities import CATALOG
from trails.enums import TrailStatus
from trails.models import Trail
from trails.services import set_trails_status
from updates.enums import SURFACE_CONDITIONS
from updates.types import SURFACE_CONDITION_CATALOG
from webapp import roles
from webapp.actors import web_actor
from webapp.outcomes import ActionOutcome, report_outcome
from webapp.twins import TWIN_FIELDS, twin_details


def page_language() -> str:
    """ "fr" when the page is in French, else "en": the catalogs' own labels follow it."""
    return "fr" if (get_language() or "").startswith("fr") else "en"


def surface_condition_choices() -> list[tuple[str, str]]:
    """The conditions in the page's language (a callable: evaluated for each form)."""
    return [(v, str(SURFACE_CONDITION_CATALOG[v].label)) for v in SURFACE_CONDITIONS]


def activity_label(value: str) -> str:
    activity = CATALOG.get(value)
    return value if activity is None else activity.label(page_language())


def activity_choices() -> list[tuple[str, str]]:
    """A blank first choice, then the catalog in the page's language (a callable: evaluated
    for each form)."""
    return [("", "---------"), *((value, activity_label(value)) for value in CATALOG)]


class ActivityFilter(admin.SimpleListFilter):
    title = _("activity")
    parameter_name = "activity"

    def lookups(self, request, model_admin):
        return sorted(((value, activity_label(value)) for value in CATALOG), key=lambda c: c[1])

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(activities__value=self.value()).distinct()
        return queryset


class CategoryFilter(admin.SimpleListFilter):
    """The categories the signed-in person's trails use; for a superAdmin, whose trails are
    every system's (half a million), those of the system the list is filtered to."""

    title = _("category")
    parameter_name = "category"

    def lookups(self, request, model_admin):
        trails = model_admin.get_queryset(request)
        if roles.is_super(request.user):
            system = request.GET.get("trail_system__id__exact")
            if not system:
                return []
            trails = trails.filter(trail_system_id=system)
        used = trails.values_list("categories", flat=True)
        names = sorted({name for names in used for name in (names or []) if isinstance(name, str)})
        return [(name, name) for name in names]

    def queryset(self, request, queryset):
        if self.value():
            # The stored JSON list's text holds the name in quotes, on SQLite and PostgreSQL.
            return queryset.filter(categories__icontains=f'"{self.value()}"')
        return queryset


def set_status_action(status: str, label):
    """A bulk action: one write and one recompile per system, through the API's bulk service
    (all of a system's selected trails, or none of them when it refuses); Open and Caution
    open the trails' Closed activities too, as on the board."""

    @admin.action(description=label, permissions=["change"])
    def action(model_admin, request, queryset):
        by_system = defaultdict(list)
        for trail in model_admin.scoped(request, queryset, "change").select_related("trail_system"):
            by_system[trail.trail_system].append(trail)
        outcome = ActionOutcome()
        for system, trails in by_system.items():
            try:
                set_trails_status(
                    system=system,
                    status=status,
                    trail_ids=[trail.pk for trail in trails],
                    actor=web_actor(request),
                    reopen_activities=True,
                )
            except DomainError as error:
                outcome.refuse(trails, str(error))
            else:
                outcome.count(trails)
        report_outcome(
            model_admin,
            request,
            outcome,
            done=lambda count: ngettext(
                "%(count)d trail set to %(status)s.", "%(count)d trails set to %(status)s.", count
            ),
            not_done=_("Not set to %(status)s"),
            params={"status": TrailStatus(status).label},
        )

    action.__name__ = f"set_status_{status.lower()}"
    return action


STATUS_ACTIONS = [
    set_status_action(TrailStatus.OPEN, _("Set status Open")),
    set_status_action(TrailStatus.CAUTION, _("Set status Caution")),
    set_status_action(TrailStatus.CLOSED, _("Set status Closed")),
    set_status_action(TrailStatus.NONE, _("Let its activities set the status")),
]


class GeometryMapWidget(forms.Textarea):
    """The GeoJSON text, with a Leaflet map preview of it beneath (webapp/trail_map.js)."""

    template_name = "webapp/widgets/geometry_map.html"

    def get_context(self, name, value, attrs):
        """The public map's base-map settings: no tile server, a plain background (offline)."""
        context = super().get_context(name, value, attrs)
        context["tile_url"] = settings.MAP_TILE_URL
        context["tile_attribution"] = settings.MAP_TILE_ATTRIBUTION
        return context

    class Media:
        css = {"all": ["vendor/leaflet/leaflet.css", "webapp/trail_map.css"]}
        js = ["vendor/leaflet/leaflet.js", "webapp/base_map.js", "webapp/trail_map.js"]


class TrailPicker(forms.CheckboxSelectMultiple):
    """Trails chosen from a list searched as one types, rather than a Ctrl-click list of a
    hundred names: each trail says its category, difficulty and length (two trails may share
    a name), and only the trails of the form's chosen system are listed
    (webapp/trail_picker.js; without scripts, every trail is a checkbox)."""

    template_name = "webapp/widgets/trail_picker.html"
    option_template_name = "webapp/widgets/trail_picker_option.html"

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        trail = getattr(value, "instance", None)
        if trail is not None:
            option["attrs"]["data-system"] = trail.trail_system_id
        return option

    class Media:
        css = {"all": ["webapp/trail_picker.css"]}
        js = ["webapp/trail_picker.js"]


class TrailChoiceField(forms.ModelMultipleChoiceField):
    """The trails of a form (an update's, a schedule's) in a TrailPicker. Trails that share
    a name say what tells them apart (webapp/twins.py), where they lie among them too."""

    widget = TrailPicker

    def __init__(self, queryset, **kwargs):
        kwargs.pop("widget", None)
        super().__init__(queryset.select_related(None).only(*TWIN_FIELDS), **kwargs)
        self._twins: dict[str, str] | None = None

    def label_from_instance(self, trail) -> str:
        if self._twins is None:  # once per form, from the rows the choices list
            self._twins = twin_details(self.queryset)
        if trail.pk in self._twins:
            return f"{trail.name} ({self._twins[trail.pk]})"
        details = [
            ", ".join(trail.categories or []),
            trail.get_difficulty_display() if trail.difficulty else "",
            f"{number_format(round(trail.distance, 1), 1)} km",
        ]
        return f"{trail.name} ({' · '.join(detail for detail in details if detail)})"


class TrailIdsForm(forms.ModelForm):
    """The form of a row with trails (an update, a schedule): its trails are `trail_ids`, the
    services' name for them, so that a service's refusal of them lands on that field. The
    field is declared for the admin to accept the name; its choices and widget are the
    person's (TrailPickerMixin)."""

    trail_ids = forms.ModelMultipleChoiceField(Trail.objects.none(), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.initial.setdefault("trail_ids", [trail.pk for trail in self.instance.trails.all()])


class TrailPickerMixin:
    """A model admin whose form's `trail_ids` (TrailIdsForm) lists the trails the role allows
    in a TrailPicker, except for a superAdmin, who searches every system's trails with the
    admin's autocomplete (`trails` among the autocomplete fields)."""

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if "trail_ids" in form.base_fields:
            form.base_fields["trail_ids"] = self.trail_ids_field(request)
        return form

    def trail_ids_field(self, request) -> forms.ModelMultipleChoiceField:
        # The queryset the role allows (scoping), not the admin's "+" pop-up of a <select>.
        field = self.formfield_for_dbfield(self.model._meta.get_field("trails"), request)
        if "trails" in self.get_autocomplete_fields(request):
            return field
        return TrailChoiceField(
            field.queryset.order_by("name", "pk"),
            required=field.required,
            label=field.label,
            help_text=_("Type to find a trail, then tick it; tick as many as you need."),
        )
