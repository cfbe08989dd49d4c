"""GET /me and the /keys endpoints (ID token only)."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.keys.serializers import (
    KeyCreateSerializer,
    KeyListSerializer,
    MeSerializer,
    NewKeySerializer,
    RevokedKeySerializer,
)
from api.permissions import IdTokenRequired
from apikeys import services


class MeView(APIView):
    @extend_schema(
        operation_id="me",
        summary="Who is calling, and with which credential",
        responses=MeSerializer,
    )
    def get(self, request):
        return Response(MeSerializer(services.account_summary(request.user, request.auth)).data)


class KeysView(APIView):
    permission_classes = [IdTokenRequired]

    @extend_schema(
        operation_id="keys_list",
        summary="The caller's keys, newest first, revoked ones included",
        responses=KeyListSerializer,
    )
    def get(self, request):
        return Response(KeyListSerializer({"keys": services.list_keys(request.user)}).data)

    @extend_schema(
        operation_id="keys_create",
        summary="Create a key; the plaintext is in this response only",
        request=KeyCreateSerializer,
        responses={201: NewKeySerializer},
    )
    def post(self, request):
        body = KeyCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        new_key = services.create_key(user=request.user, **body.validated_data)
        return Response(NewKeySerializer(new_key).data, status=status.HTTP_201_CREATED)


class KeyDetailView(APIView):
    permission_classes = [IdTokenRequired]

    @extend_schema(
        operation_id="keys_revoke",
        summary="Revoke one of the caller's keys, at once and for good",
        responses=RevokedKeySerializer,
    )
    def delete(self, request, key_id: str):
        key = services.revoke_key(user=request.user, key_id=key_id)
        return Response({"ok": True, "id": key.pk})
