"""Web app for accounts (the superAdmin flag) and each person's own API keys."""

from copy import deepcopy

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apikeys.models import ApiKey, User
from apikeys.services import (
    change_account,
    create_account,
    create_key,
    delete_account,
    revoke_key,
)
from trails.models import TrailSystem
from trails.selectors import managed_systems
from webapp import roles
from webapp.admin.base import DeleteThroughService, ServiceAdmin, account_text


@admin.register(User)
class UserAdmin(DeleteThroughService, ServiceAdmin):
    """Accounts, the operators' (superAdmins'): written through apikeys.services."""

    row_name = "user"
    delete_function = staticmethod(delete_account)
    list_display = ["uid", "email", "is_super_admin", "is_staff", "is_active", "last_login"]
    list_filter = ["is_super_admin", "is_staff", "is_active"]
    search_fields = ["uid", "email"]
    fields = [
        "uid",
        "email",
        "is_super_admin",
        "is_staff",
        "is_superuser",
        "is_active",
        "invitation_pending",
        "date_joined",
        "last_login",
    ]
    # No groups or model permissions: they grant nothing here (webapp.backends), roles do.
    readonly_fields = ["invitation_pending", "date_joined", "last_login"]

    def get_readonly_fields(self, request, obj=None):
        # The uid is the Firebase identity: set once, never edited.
        return [*self.readonly_fields, "uid"] if obj else self.readonly_fields

    def save_model(self, request, obj, form, change):
        if change:
            change_account(user=obj, **self.changed_fields(form))
            return
        user = create_account(**form.cleaned_data)
        self.stand_for(obj, user)


ACCESS_LABELS = {"write": _("Read and write"), "read": _("Read only")}


class OneSystemOrEvery(forms.ModelChoiceField):
    """The systems a new key is for, picked as spec section 5 has the form offer them: one
    system, or (empty) every one its account manages. Cleaned as apikeys.services takes them,
    a list of system ids or None, so the field is `trail_system_ids` like the service's
    parameter and a refusal of that parameter lands on it."""

    def clean(self, value) -> list[str] | None:
        system = super().clean(value)
        return [system.pk] if system is not None else None


class ApiKeyForm(forms.ModelForm):
    """The key form of spec section 5: access, an optional single system, an expiry."""

    access = forms.ChoiceField(
        label=_("Access"),
        choices=list(ACCESS_LABELS.items()),
        initial="write",
    )
    trail_system_ids = OneSystemOrEvery(
        label=_("Only for this trail system"),
        queryset=TrailSystem.objects.none(),
        required=False,
        empty_label=_("Every system I manage"),
    )
    expires_in_days = forms.TypedChoiceField(
        label=_("Expires"),
        choices=[
            ("", _("Never")),
            (30, _("In 30 days")),
            (90, _("In 90 days")),
            (365, _("In 1 year")),
        ],
        coerce=int,
        empty_value=None,
        required=False,
    )

    class Meta:
        model = ApiKey
        fields = ["name"]


class ApiKeyChangeList(ChangeList):
    """Names the systems of the page's restricted keys with one query, not one per key."""

    def get_results(self, request) -> None:
        super().get_results(request)
        restricted = [key for key in self.result_list if key.trail_system_ids is not None]
        wanted = {pk for key in restricted for pk in key.trail_system_ids}
        names = dict(TrailSystem.objects.filter(pk__in=wanted).values_list("pk", "name"))
        for key in restricted:
            key.system_names = [names[pk] for pk in key.trail_system_ids if pk in names]


@admin.register(ApiKey)
class ApiKeyAdmin(ServiceAdmin):
    """Each person's own keys (a superAdmin sees every account's): create, see, revoke.

    The plaintext is shown once, on the page that follows the form; only its digest is stored.
    """

    list_display = [
        "name", "prefix", "access", "systems", "created_on", "expires_at", "last_used_on",
        "revoked",
    ]  # fmt: skip
    list_filter = ["revoked"]
    list_select_related = ["user"]
    search_fields = ["name", "prefix"]
    readonly_fields = [
        "name", "prefix", account_text, "access", "systems", "created_on", "expires_at",
        "last_used_on", "revoked", "revoked_on",
    ]  # fmt: skip
    actions = ["revoke"]

    @admin.display(description=_("Access"))
    def access(self, key) -> str:
        return ACCESS_LABELS["write" if "write" in key.scopes else "read"]

    @admin.display(description=_("Trail systems"))
    def systems(self, key) -> str:
        """The systems the key is restricted to, by name; or every system its account manages."""
        if key.trail_system_ids is None:
            return _("Every system its account manages")
        names = getattr(key, "system_names", None)
        if names is None:  # the key's own page; a list names them all at once (ApiKeyChangeList)
            names = TrailSystem.objects.filter(pk__in=key.trail_system_ids).values_list(
                "name", flat=True
            )
        return ", ".join(sorted(names)) or "-"

    def get_changelist(self, request, **kwargs):
        return ApiKeyChangeList

    def get_list_display(self, request):
        if roles.is_super(request.user):
            return [*self.list_display, "user"]
        return self.list_display

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            return super().get_form(request, obj, change, **kwargs)
        form = super().get_form(request, obj, change, form=ApiKeyForm, fields=["name"])
        # A copy: the declared field is the form class's, shared by every person's page.
        systems = deepcopy(form.base_fields["trail_system_ids"])
        systems.queryset = managed_systems(request.user)
        form.base_fields["trail_system_ids"] = systems
        return form

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else []

    def get_fields(self, request, obj=None):
        if obj is not None:
            return self.readonly_fields
        return ["name", "access", "trail_system_ids", "expires_in_days"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        new = create_key(
            user=request.user,
            name=data["name"],
            scopes=["read", data["access"]],
            trail_system_ids=data["trail_system_ids"],
            expires_in_days=data.get("expires_in_days"),
        )
        obj.pk, obj.prefix = new.key.pk, new.key.prefix
        request.new_key_plaintext = new.plaintext

    def response_add(self, request, obj, post_url_continue=None):
        context = {
            **self.admin_site.each_context(request),
            "title": _("Your new API key"),
            "opts": self.opts,
            "key": obj,
            "plaintext": request.new_key_plaintext,
        }
        return TemplateResponse(request, "webapp/apikey_created.html", context)

    def has_revoke_permission(self, request) -> bool:
        return request.user.has_perm("apikeys.change_apikey")

    @admin.action(description=_("Revoke selected keys"), permissions=["revoke"])
    def revoke(self, request, queryset):
        keys = list(queryset.filter(revoked=False))
        for key in keys:
            revoke_key(user=None if roles.is_super(request.user) else request.user, key_id=key.pk)
        self.message_user(
            request,
            ngettext("Revoked %(count)d key.", "Revoked %(count)d keys.", len(keys))
            % {"count": len(keys)},
            messages.SUCCESS,
        )
