"""The web app's authentication backends; both go through django.contrib.auth.authenticate, so
django-axes checks lockouts and counts failures for every sign-in method alike."""

from django.contrib.auth.backends import BaseBackend, ModelBackend
from django.http import HttpRequest
from sesame.backends import ModelBackend as SesameModelBackend

from apikeys.identity import user_for_claims, verify_id_token
from apikeys.models import User
from core.errors import NotAuthenticated
from webapp import roles


class RoleBackend(SesameModelBackend):
    """Operators' passwords and e-mailed links (django-sesame); permissions by role only.

    Django's model permissions (groups, user permissions) grant nothing here: what a person may
    do in the web app follows from their role on each system (webapp.roles), nothing else.
    """

    def authenticate(
        self,
        request: HttpRequest | None,
        sesame: str | None = None,
        scope: str = "",
        max_age: int | None = None,
        **credentials: str,
    ) -> User | None:
        """django-sesame's authenticate takes only a link token, so a uid and password (an
        operator) go to Django's ModelBackend, which sesame's backend extends."""
        if sesame is not None:
            return super().authenticate(request, sesame, scope=scope, max_age=max_age)
        return ModelBackend.authenticate(self, request, **credentials)

    def has_perm(self, user_obj, perm, obj=None) -> bool:
        return roles.has_perm(user_obj, perm, obj)

    def has_module_perms(self, user_obj, app_label) -> bool:
        return roles.has_module_perms(user_obj, app_label)

    def get_user_permissions(self, user_obj, obj=None) -> set:
        return set()

    def get_group_permissions(self, user_obj, obj=None) -> set:
        return set()

    def get_all_permissions(self, user_obj, obj=None) -> set:
        return set()


class FirebaseIdTokenBackend(BaseBackend):
    """A Firebase ID token, verified exactly as the management API verifies it."""

    def authenticate(self, request, id_token: str | None = None, **kwargs) -> User | None:
        if not id_token:
            return None
        try:
            return user_for_claims(verify_id_token(id_token))
        except NotAuthenticated:
            return None

    def get_user(self, user_id) -> User | None:
        return User.objects.filter(pk=user_id, is_active=True).first()
