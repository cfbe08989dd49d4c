"""The admin base that applies webapp.roles to every page of a model: the rows listed and
found, the permissions, the choices of related rows, the filters and the autocompletes.

A row of a system the signed-in person does not manage is never listed, offered or shown:
its address answers 404, as if it did not exist.
"""

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404

from apikeys.models import User
from trails.models import TrailSystem
from webapp import roles
from webapp.pagination import CappedCountPaginator


def related_choices(user, related_model: type[Model], for_model: type[Model]) -> QuerySet | None:
    """The rows of `related_model` that `user` may pick on a form of `for_model`; None: all."""
    if roles.is_super(user):
        return None
    if related_model is TrailSystem:
        who = roles.need(for_model, "add") or roles.need(for_model, "change")
        return (
            roles.systems_for(user, who)
            if who in (roles.MEMBER, roles.ADMINISTRATOR)
            else (TrailSystem.objects.none())
        )
    if related_model is User:
        # Accounts are never listed; new members are invited by e-mail address.
        return User.objects.filter(pk=user.pk)
    return roles.scoped(user, related_model._default_manager.all())


class ScopedRelatedFilter(admin.RelatedFieldListFilter):
    """A related-row filter that offers only rows the signed-in person may see."""

    def field_choices(self, field, request, model_admin):
        choices = related_choices(request.user, field.related_model, model_admin.model)
        if choices is None:
            return super().field_choices(field, request, model_admin)
        return [(row.pk, str(row)) for row in choices]


class SearchedRelatedFilter(admin.RelatedFieldListFilter):
    """A related-row filter whose row is searched for (the admin's autocomplete) instead of
    picked from a list of every row: a superAdmin's list of 10,000 trail systems would
    weigh more than the page it filters. Choosing a row submits the filter."""

    template = "webapp/searched_filter.html"

    def field_choices(self, field, request, model_admin):
        return []  # the widget shows the chosen row; the others are searched for

    def has_output(self) -> bool:
        return True

    def choices(self, changelist):
        chosen = self.lookup_val[-1] if self.lookup_val else None
        field = forms.ModelChoiceField(
            queryset=self.field.related_model._default_manager.all(),
            required=False,
            widget=AutocompleteSelect(self.field, changelist.model_admin.admin_site),
        )
        form = forms.Form(initial={self.lookup_kwarg: chosen})
        form.fields[self.lookup_kwarg] = field
        # The search, ordering and other filters stay as they are.
        kept = [
            (name, value)
            for name, value in changelist.params.items()
            if name not in self.expected_parameters()
        ]
        yield {
            "field": form[self.lookup_kwarg],
            "kept": kept,
            "query": changelist.get_query_string(remove=self.expected_parameters()),
            "chosen": chosen is not None,
        }


def searched_filter_media(field, admin_site) -> forms.Media:
    # Named after the admin's scripts it needs, so that the media merge puts it after them.
    return AutocompleteSelect(field, admin_site).media + forms.Media(
        js=["admin/js/jquery.init.js", "admin/js/autocomplete.js", "webapp/searched_filter.js"]
    )


class RoleScopedMixin:
    """For ModelAdmin and inlines: every permission is the role rule, on the row when there is
    one (Django's checks ask the permission backend, which is the same rule, for the model)."""

    def _allowed(self, request, action: str, obj) -> bool:
        perm = f"{self.opts.app_label}.{action}_{self.opts.model_name}"
        return obj is None or request.user.has_perm(perm, obj)

    def has_view_permission(self, request, obj=None) -> bool:
        return super().has_view_permission(request, obj) and (
            self._allowed(request, "view", obj) or self._allowed(request, "change", obj)
        )

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) and self._allowed(request, "change", obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and self._allowed(request, "delete", obj)

    def get_queryset(self, request):
        return roles.scoped(request.user, super().get_queryset(request))

    def get_autocomplete_fields(self, request):
        # An autocomplete searches another model's whole admin; choices are scoped selects.
        return super().get_autocomplete_fields(request) if roles.is_super(request.user) else []

    def _with_scoped_choices(self, db_field, request, kwargs: dict) -> dict:
        if "queryset" not in kwargs:
            choices = related_choices(request.user, db_field.related_model, self.model)
            if choices is not None:
                kwargs["queryset"] = choices
        return kwargs

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        kwargs = self._with_scoped_choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        kwargs = self._with_scoped_choices(db_field, request, kwargs)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


class RoleScopedAdmin(RoleScopedMixin, admin.ModelAdmin):
    """Base of every ModelAdmin of the web app. A superAdmin's lists hold every system's rows
    (half a million trails, a million subscribers): a page counts them only up to a cap, and
    never twice (no separate total)."""

    paginator = CappedCountPaginator
    show_full_result_count = False

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            # Not yours, or no such row: the same answer, so nothing is learnt from it.
            if not self.has_view_or_change_permission(request):
                raise PermissionDenied
            raise Http404
        return obj

    def get_list_filter(self, request):
        searched = roles.is_super(request.user)
        return [self._scoped_filter(entry, searched) for entry in super().get_list_filter(request)]

    def _scoped_filter(self, entry, searched: bool):
        """A superAdmin searches for the row (every one of thousands is theirs to filter by);
        anyone else picks among the few they manage."""
        if isinstance(entry, str) and "__" not in entry:
            field = self.opts.get_field(entry)
            if field.is_relation and field.many_to_one:
                related_admin = self.admin_site._registry.get(field.related_model)
                if searched and related_admin and related_admin.search_fields:
                    return (entry, SearchedRelatedFilter)
                return (entry, ScopedRelatedFilter)
        return entry

    def changelist_view(self, request, extra_context=None):
        searched = [
            self.opts.get_field(entry[0])
            for entry in self.get_list_filter(request)
            if isinstance(entry, tuple) and entry[1] is SearchedRelatedFilter
        ]
        if searched:
            media = self.media + searched_filter_media(searched[0], self.admin_site)
            extra_context = {"media": media, **(extra_context or {})}
        return super().changelist_view(request, extra_context)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, roles.scoped(request.user, queryset, "delete"))

    def scoped(self, request, queryset: QuerySet, action: str) -> QuerySet:
        """The selected rows on which the signed-in person may take `action` (bulk actions)."""
        return roles.scoped(request.user, queryset, action)


class RoleScopedTabularInline(RoleScopedMixin, admin.TabularInline):
    """Base of every inline: the parent row's system decides."""

    extra = 0

    def has_add_permission(self, request, obj=None) -> bool:
        return super().has_add_permission(request, obj) and self._allowed(request, "add", obj)
