"""The two credentials of the management interface: API keys and Firebase ID tokens."""

import hmac

from rest_framework.authentication import BaseAuthentication

from apikeys import keys
from apikeys.credentials import API_KEY, ID_TOKEN, Credential
from apikeys.identity import user_for_claims, verify_id_token
from apikeys.models import ApiKey
from apikeys.services import record_key_use
from core.errors import NotAuthenticated
from core.queries import by_key


def read_credential(request) -> str | None:
    """The bearer credential, or the X-API-Key header; None when neither is sent."""
    header = request.META.get("HTTP_AUTHORIZATION", "").strip()
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer":
            raise NotAuthenticated("invalid_token", "Authorization must use the Bearer scheme.")
        return value.strip() or None
    api_key = request.META.get("HTTP_X_API_KEY", "").strip()
    return api_key or None


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request):
        credential = read_credential(request)
        if credential is None:
            return None
        from_x_api_key = not request.META.get("HTTP_AUTHORIZATION")
        if not keys.is_api_key(credential):
            if from_x_api_key:
                raise NotAuthenticated("invalid_api_key", "API key not recognised.")
            return None
        key = self._verified_key(credential)
        record_key_use(key=key)
        return key.user, Credential(API_KEY, tuple(keys.normalized_scopes(key.scopes)), key=key)

    def authenticate_header(self, request) -> str:
        return "Bearer"

    @staticmethod
    def _verified_key(credential: str) -> ApiKey:
        computed = keys.digest(credential)
        key = by_key(ApiKey.objects.select_related("user").filter(digest=computed))
        if key is None or not hmac.compare_digest(key.digest, computed):
            raise NotAuthenticated("invalid_api_key", "API key not recognised.")
        if key.revoked:
            raise NotAuthenticated("revoked_api_key", "API key has been revoked.")
        if key.is_expired:
            raise NotAuthenticated("expired_api_key", "API key has expired.")
        if not key.user.is_active:
            raise NotAuthenticated("invalid_api_key", "API key not recognised.")
        return key


class FirebaseIdTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        credential = read_credential(request)
        if credential is None:
            return None
        claims = verify_id_token(credential)
        user = user_for_claims(claims)
        return user, Credential(ID_TOKEN, ("read", "write"), claims=claims)

    def authenticate_header(self, request) -> str:
        return "Bearer"
