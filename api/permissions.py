"""Scopes and roles. Checks run in one documented order (docs/developers/api.md):
credential (401) -> scope (403 insufficient_scope) -> existence (404, in the view) ->
key restriction (403 key_restricted) -> role (403 forbidden, then admin_required).

A view declares what it needs and nothing more: the default `ScopePermission` covers the
credential and the scope; the view looks up what its path names (404) and then calls
`authorize(request, system, admin=...)`. A view whose method needs the Administrator role
also lists it in `administrator_methods` so that GET / describes the route correctly.
"""

from django.db.models import QuerySet
from rest_framework.permissions import SAFE_METHODS, BasePermission

from apikeys.credentials import API_KEY, ID_TOKEN, Credential
from core.actors import Actor, Via
from core.errors import Forbidden
from trails import selectors
from trails.enums import Role
from trails.models import TrailSystem


class ScopePermission(BasePermission):
    """Default for every management view: a credential, and write scope for writes."""

    def has_permission(self, request, view) -> bool:
        credential = request.auth
        if not isinstance(credential, Credential):
            return False
        if request.method not in SAFE_METHODS and not credential.can_write:
            raise Forbidden("insufficient_scope", "This key is read-only.")
        return True


class WriteScopePermission(ScopePermission):
    """Routes whose every method, reads included, needs the write scope (webhooks: a
    webhook's URL often carries the receiver's own token)."""

    write_for_reads = True

    def has_permission(self, request, view) -> bool:
        credential = request.auth
        if not isinstance(credential, Credential):
            return False
        if not credential.can_write:
            raise Forbidden("insufficient_scope", "This key is read-only.")
        return True


class IdTokenRequired(BasePermission):
    """The /keys endpoints: an ID token; any API key, whatever its scopes, is refused."""

    def has_permission(self, request, view) -> bool:
        credential = request.auth
        if not isinstance(credential, Credential):
            return False
        if credential.auth_type != ID_TOKEN:
            raise Forbidden("id_token_required", "API keys cannot manage keys; use an ID token.")
        return True


def authorize(request, system: TrailSystem, *, admin: bool = False) -> str:
    """Raise the spec's 403 unless the caller may act on `system`; returns their role."""
    credential: Credential = request.auth
    if not credential.allows_system(system.pk):
        raise Forbidden("key_restricted", "This key is limited to other trail systems.")
    role = selectors.role_for(request.user, system)
    if role is None:
        raise Forbidden("forbidden", "You do not manage this trail system.")
    if admin and role != Role.ADMINISTRATOR:
        raise Forbidden("admin_required", "The Administrator role is needed.")
    return role


def permitted_systems(request) -> QuerySet[TrailSystem]:
    """GET /trail-systems: the systems the caller manages, narrowed by any key restriction."""
    systems = selectors.managed_systems(request.user)
    key = request.auth.key
    if key is not None and key.trail_system_ids is not None:
        systems = systems.filter(pk__in=key.trail_system_ids)
    return systems


def request_actor(request) -> Actor:
    """Who is writing, for the services: the account and the credential's path and key."""
    credential: Credential = request.auth
    if credential.auth_type == API_KEY:
        return Actor(request.user.pk, Via.API_KEY, credential.key.pk)
    return Actor(request.user.pk, Via.ID_TOKEN)
