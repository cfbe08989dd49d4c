"""Scopes and roles. Checks run in one documented order (README, API section):
credential (401) -> scope (403 insufficient_scope) -> existence (404, in the view) ->
key restriction (403 key_restricted) -> role (403 forbidden, then admin_required).
"""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from apikeys.authentication import Credential
from config.errors import forbidden
from trails.enums import Role
from trails.models import Membership, TrailSystem


class ScopePermission(BasePermission):
    """Default for every management view: a credential, and write scope for writes."""

    def has_permission(self, request, view) -> bool:
        credential = request.auth
        if not isinstance(credential, Credential):
            return False
        if request.method not in SAFE_METHODS and not credential.can_write:
            raise forbidden("insufficient_scope", "This key is read-only.")
        return True


class IdTokenRequired(ScopePermission):
    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        if request.auth.auth_type != "idToken":
            raise forbidden("id_token_required", "API keys cannot manage keys; use an ID token.")
        return True


def role_for(user, system: TrailSystem) -> str | None:
    """The caller's role on a system, or None when they do not manage it."""
    if user is None:
        return None
    if user.is_super_admin or system.owner_id == user.pk:
        return Role.ADMINISTRATOR
    membership = Membership.objects.filter(trail_system=system, user=user).only("role").first()
    return membership.role if membership else None


def authorize(request, system: TrailSystem, *, admin: bool = False) -> str:
    """Raise the spec's 403 unless the caller may act on `system`; returns their role."""
    credential: Credential = request.auth
    if not credential.allows_system(system.pk):
        raise forbidden("key_restricted", "This key is limited to other trail systems.")
    role = role_for(request.user, system)
    if role is None:
        raise forbidden("forbidden", "You do not manage this trail system.")
    if admin and role != Role.ADMINISTRATOR:
        raise forbidden("admin_required", "The Administrator role is needed.")
    return role
