"""The web app for trail systems, members, trails with their activities, points and the trash.

Every admin write to trails, points (and updates, see webapp.admin.updates) queues a recompile
in the same transaction, exactly as an API write does.
"""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from trails import trash
from trails.activities import CATALOG
from trails.geometry import GeometryError
from trails.geometry import validate as validate_geometry
from trails.importing import InvalidInput, validate_role
from trails.models import (
    Membership,
    Point,
    Trail,
    TrailActivity,
    TrailSystem,
    TrashedPoint,
    TrashedTrail,
)
from webapp.admin.base import CompileOnWriteAdmin, apply_to_selected
from webapp.scoping import RoleScopedAdmin, RoleScopedTabularInline
from webapp.trail_admin import (
    STATUS_ACTIONS,
    ActivityFilter,
    CategoryFilter,
    GeometryMapWidget,
    activity_label,
)


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["role"]

    def clean_role(self) -> str:
        try:
            return validate_role(self.cleaned_data["role"])
        except InvalidInput as error:
            raise ValidationError(str(error)) from None


class MembershipInline(RoleScopedTabularInline):
    """Members' roles; new members come in by e-mail invitation (the system's Invite page)."""

    model = Membership
    form = MembershipForm
    readonly_fields = ["user"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(TrailSystem)
class TrailSystemAdmin(RoleScopedAdmin):
    list_display = [
        "name",
        "id",
        "owner",
        "subscription",
        "inactive",
        "total_trails",
        "open_trails",
    ]
    list_filter = ["inactive", "subscription", "language"]
    search_fields = ["name", "id", "owner__uid", "owner__email"]
    autocomplete_fields = ["owner"]
    inlines = [MembershipInline]
    readonly_fields = [
        "id",
        "created_on",
        "total_trails",
        "open_trails",
        "caution_trails",
        "closed_trails",
        "total_distance",
        "open_distance",
        "geo_json_path",
        "compiled_on",
    ]
    fieldsets = [
        (None, {"fields": ["id", "name", "description", "owner", "subscription"]}),
        ("Contact", {"fields": ["phone_number", "website"]}),
        (
            "Display",
            {
                "fields": [
                    "language",
                    ("depth_measurement", "length_measurement", "temp_measurement"),
                    ("lat", "lng"),
                    ("inactive", "blocked", "hide_name", "promote_trail_hub"),
                ]
            },
        ),
        (
            "Published (written by the compile)",
            {
                "classes": ["collapse"],
                "fields": [
                    ("total_trails", "open_trails", "caution_trails", "closed_trails"),
                    ("total_distance", "open_distance"),
                    "geo_json_path",
                    "compiled_on",
                    "created_on",
                ],
            },
        ),
    ]


class TrailActivityForm(forms.ModelForm):
    value = forms.ChoiceField(
        choices=[(a.value, a.en) for a in CATALOG.values()],
        error_messages={
            "invalid_choice": "Unknown activity %(value)s; choose one of: "
            + ", ".join(sorted(CATALOG))
            + "."
        },
    )

    class Meta:
        model = TrailActivity
        fields = ["value", "status", "difficulty", "position"]


class TrailActivityInline(RoleScopedTabularInline):
    """The only place activities are added to a trail (the API may only change them)."""

    model = TrailActivity
    form = TrailActivityForm


class TrailForm(forms.ModelForm):
    class Meta:
        model = Trail
        fields = [
            "trail_system",
            "name",
            "description",
            "status",
            "difficulty",
            "type",
            "line_style",
            "hidden",
            "one_way",
            "one_way_reversed",
            "order",
            "categories",
            "geometry",
        ]
        help_texts = {"geometry": "GeoJSON LineString or MultiLineString, [lng, lat] positions."}
        widgets = {"geometry": GeometryMapWidget}

    def clean_geometry(self) -> dict:
        try:
            return validate_geometry(self.cleaned_data["geometry"])
        except GeometryError as error:
            raise ValidationError(str(error)) from None


class TrashActionMixin:
    """`Move to the trash` for live rows: the same service the API's DELETE calls."""

    trash_function = None
    actions = ["move_to_trash"]

    @admin.action(description="Move selected to the trash", permissions=["change"])
    def move_to_trash(self, request, queryset):
        apply_to_selected(self, request, queryset, self.trash_function, "Moved to the trash:")


@admin.register(Trail)
class TrailAdmin(TrashActionMixin, CompileOnWriteAdmin):
    form = TrailForm
    trash_function = staticmethod(trash.trash_trail)
    inlines = [TrailActivityInline]
    actions = [*STATUS_ACTIONS, "move_to_trash"]
    list_display = ["name", "trail_system", "status", "activity_list", "difficulty", "distance"]
    list_filter = ["status", ActivityFilter, CategoryFilter, "difficulty", "trail_system"]
    search_fields = ["name"]
    list_select_related = ["trail_system"]
    autocomplete_fields = ["trail_system"]
    readonly_fields = ["id", "distance", "lat", "lng", "created_on", "created_by", "updated_by"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("activities")

    @admin.display(description=_("activities"))
    def activity_list(self, trail) -> str:
        return ", ".join(
            f"{activity_label(a.value)} ({a.get_status_display()})" for a in trail.activities.all()
        )

    def save_model(self, request, obj, form, change):
        obj.apply_geometry(obj.geometry)
        super().save_model(request, obj, form, change)


@admin.register(Point)
class PointAdmin(TrashActionMixin, CompileOnWriteAdmin):
    trash_function = staticmethod(trash.trash_point)
    list_display = ["name", "trail_system", "marker_class", "status", "hidden", "created_on"]
    list_filter = ["status", "marker_class", "trail_system"]
    search_fields = ["name", "id"]
    list_select_related = ["trail_system"]
    autocomplete_fields = ["trail_system"]
    readonly_fields = ["id", "created_on", "created_by", "updated_by"]
    exclude = ["trashed_on", "trashed_by", "updated_on"]


class TrashAdmin(CompileOnWriteAdmin):
    """Trashed rows, read-only; restore puts them back, delete removes them for good."""

    restore_function = None
    actions = ["restore"]
    list_display = ["name", "trail_system", "trashed_on", "trashed_by"]
    list_filter = ["trail_system"]
    search_fields = ["name", "id"]
    list_select_related = ["trail_system"]
    ordering = ["-trashed_on"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_restore_permission(self, request) -> bool:
        live_model = self.model._meta.proxy_for_model._meta
        return request.user.has_perm(f"{live_model.app_label}.change_{live_model.model_name}")

    @admin.action(description="Restore selected from the trash", permissions=["restore"])
    def restore(self, request, queryset):
        apply_to_selected(
            self, request, queryset, self.restore_function, "Restored from the trash:"
        )


@admin.register(TrashedTrail)
class TrashedTrailAdmin(TrashAdmin):
    restore_function = staticmethod(trash.restore_trail)


@admin.register(TrashedPoint)
class TrashedPointAdmin(TrashAdmin):
    restore_function = staticmethod(trash.restore_point)
