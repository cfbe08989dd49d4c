"""/trail-systems/:id/webhooks: an Administrator's outbound webhooks (docs/developers/webhooks.md).

Every method, reads included, needs the write scope (a webhook's URL often carries the
receiver's own token) and the Administrator role. Checks run in the documented order:
credential and scope, the path's system and webhook (404), then the caller's rights."""

from django.utils.cache import patch_cache_control
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import changes, done, shape, validated
from api.permissions import WriteScopePermission, authorize, request_actor
from api.webhooks.serializers import (
    WebhookChangeSerializer,
    WebhookCreateSerializer,
    WebhookResumeSerializer,
    WebhookSerializer,
    WebhookWithSecretSerializer,
)
from trails import selectors as trail_selectors
from trails.models import TrailSystem
from webhooks import selectors, services
from webhooks.models import WebhookEndpoint

ADMINISTRATOR_ONLY = ("GET", "POST", "PATCH", "DELETE")
WEBHOOK_ID = OpenApiParameter("webhook_id", str, OpenApiParameter.PATH, description="webhook id")


def with_secret(answer: Response) -> Response:
    """The secret is in this body only: no browser or proxy may keep a copy."""
    patch_cache_control(answer, no_store=True)
    return answer


class WebhookViewBase(APIView):
    permission_classes = [WriteScopePermission]
    administrator_methods = ADMINISTRATOR_ONLY  # read by GET / to describe the route

    def system(self, request: Request, system_id: str) -> TrailSystem:
        system = trail_selectors.system_or_404(system_id)
        authorize(request, system, admin=True)
        return system

    def endpoint(self, request: Request, system_id: str, webhook_id: str) -> WebhookEndpoint:
        system = trail_selectors.system_or_404(system_id)
        endpoint = selectors.endpoint_or_404(system, webhook_id)
        authorize(request, system, admin=True)
        return endpoint


class WebhooksView(WebhookViewBase):
    @extend_schema(
        operation_id="webhooks_list",
        summary="The trail system's webhooks, oldest first (without their secrets)",
        responses=shape(
            "Webhooks",
            trail_system_id=serializers.CharField(),
            webhooks=WebhookSerializer(many=True),
        ),
    )
    def get(self, request: Request, system_id: str) -> Response:
        system = self.system(request, system_id)
        webhooks = WebhookSerializer(selectors.endpoints_of_system(system), many=True).data
        return Response({"trail_system_id": system.pk, "webhooks": webhooks})

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook; its signing secret is in this answer only",
        request=WebhookCreateSerializer,
        responses={201: WebhookWithSecretSerializer},
    )
    def post(self, request: Request, system_id: str) -> Response:
        system = self.system(request, system_id)
        body = validated(WebhookCreateSerializer, request)
        created = services.create_endpoint(system=system, actor=request_actor(request), **body)
        data = WebhookWithSecretSerializer(created).data
        return with_secret(Response(data, status.HTTP_201_CREATED))


class WebhookView(WebhookViewBase):
    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One webhook (without its secret)",
        parameters=[WEBHOOK_ID],
        responses=WebhookSerializer,
    )
    def get(self, request: Request, system_id: str, webhook_id: str) -> Response:
        return Response(WebhookSerializer(self.endpoint(request, system_id, webhook_id)).data)

    @extend_schema(
        operation_id="webhooks_partial_update",
        summary="Change a webhook's URL, events or active flag",
        parameters=[WEBHOOK_ID],
        request=WebhookChangeSerializer,
        responses=WebhookSerializer,
    )
    def patch(self, request: Request, system_id: str, webhook_id: str) -> Response:
        endpoint = self.endpoint(request, system_id, webhook_id)
        services.change_endpoint(
            endpoint=endpoint,
            **changes(WebhookChangeSerializer, request),
            actor=request_actor(request),
        )
        endpoint.refresh_from_db()
        return Response(WebhookSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete a webhook and its deliveries; nothing more is sent to it",
        parameters=[WEBHOOK_ID],
        responses={
            200: done(
                "WebhookRemoved", id=serializers.CharField(), deleted=serializers.BooleanField()
            )
        },
    )
    def delete(self, request: Request, system_id: str, webhook_id: str) -> Response:
        endpoint = self.endpoint(request, system_id, webhook_id)
        services.delete_endpoint(endpoint=endpoint, actor=request_actor(request))
        return Response({"ok": True, "id": endpoint.pk, "deleted": True})


class RotateSecretView(WebhookViewBase):
    @extend_schema(
        operation_id="webhooks_rotate_secret",
        summary="A new signing secret, in this answer only; the old one also signs for 24 hours",
        parameters=[WEBHOOK_ID],
        request=None,
        responses={200: WebhookWithSecretSerializer},
    )
    def post(self, request: Request, system_id: str, webhook_id: str) -> Response:
        endpoint = self.endpoint(request, system_id, webhook_id)
        rotated = services.rotate_secret(endpoint=endpoint, actor=request_actor(request))
        return with_secret(Response(WebhookWithSecretSerializer(rotated).data))


class ResumeView(WebhookViewBase):
    @extend_schema(
        operation_id="webhooks_resume",
        summary="Resume a paused (or backing-off) webhook: what waits goes now, in order; "
        "with sendFailedAgain, the failed deliveries too",
        parameters=[WEBHOOK_ID],
        request=WebhookResumeSerializer,
        responses={
            200: done(
                "WebhookResumed",
                id=serializers.CharField(),
                waiting=serializers.IntegerField(help_text="Deliveries that go now, in order."),
                sent_again=serializers.IntegerField(help_text="Failed deliveries sent again."),
            )
        },
    )
    def post(self, request: Request, system_id: str, webhook_id: str) -> Response:
        endpoint = self.endpoint(request, system_id, webhook_id)
        actor = request_actor(request)
        sent_again = 0
        if validated(WebhookResumeSerializer, request)["send_failed_again"]:
            sent_again = services.send_failed_again(endpoint=endpoint, actor=actor)
        else:
            services.resume_endpoint(endpoint=endpoint, actor=actor)
        return Response(
            {
                "ok": True,
                "id": endpoint.pk,
                "waiting": selectors.waiting_count(endpoint),
                "sent_again": sent_again,
            }
        )
