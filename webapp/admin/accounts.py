"""Web app for accounts (the superAdmin flag) and API keys (read-only, revocable)."""

from django.contrib import admin, messages
from django.utils import timezone

from apikeys.models import ApiKey, User
from webapp.admin.base import ReadOnlyAdmin


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
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
        "groups",
        "user_permissions",
        "date_joined",
        "last_login",
    ]
    readonly_fields = ["date_joined", "last_login"]
    filter_horizontal = ["groups", "user_permissions"]

    def get_readonly_fields(self, request, obj=None):
        # The uid is the Firebase identity: set once, never edited.
        return [*self.readonly_fields, "uid"] if obj else self.readonly_fields


@admin.register(ApiKey)
class ApiKeyAdmin(ReadOnlyAdmin):
    """Keys are made by their owners through POST /keys; here they can only be revoked."""

    list_display = ["name", "prefix", "user", "scopes", "created_on", "expires_at", "revoked"]
    list_filter = ["revoked"]
    list_select_related = ["user"]
    search_fields = ["name", "prefix", "user__uid", "user__email"]
    exclude = ["digest"]
    actions = ["revoke"]

    def has_revoke_permission(self, request) -> bool:
        return request.user.has_perm("apikeys.change_apikey")

    @admin.action(description="Revoke selected keys", permissions=["revoke"])
    def revoke(self, request, queryset):
        count = queryset.filter(revoked=False).update(revoked=True, revoked_on=timezone.now())
        self.message_user(request, f"Revoked {count} key(s).", messages.SUCCESS)
