"""JSON shapes of /trail-systems/:id/webhooks: what comes in, what goes out."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import JsDateTimeField, RequiredFieldsMixin, StrictBooleanField, StrictCharField
from core.events import EVENT_TYPES
from webhooks.models import WebhookEndpoint
from webhooks.targets import URL_MAX_LENGTH, URL_PATTERN


@extend_schema_field({"type": "string", "maxLength": URL_MAX_LENGTH, "pattern": URL_PATTERN})
class WebhookUrlField(StrictCharField):
    """The receiver's URL; webhooks.targets checks its form and where it resolves to."""

    def __init__(self, **kwargs):
        super().__init__(max_length=URL_MAX_LENGTH, trim_whitespace=False, **kwargs)


class WebhookChangeSerializer(serializers.Serializer):
    """The PATCH body; POST requires url and events."""

    url = WebhookUrlField(
        required=False,
        help_text="Where events are posted: http:// or https:// (https:// only in production), "
        "a host that resolves to public addresses only, no user name, password or #fragment.",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_TYPES),
        required=False,
        allow_empty=False,
        min_length=1,
        max_length=len(EVENT_TYPES),
        help_text="The event types posted to it; each type once (repeats are dropped).",
    )
    active = StrictBooleanField(
        required=False,
        help_text="false: nothing is sent. true again clears a disabling after 24 hours of "
        "failures.",
    )


class WebhookCreateSerializer(RequiredFieldsMixin, WebhookChangeSerializer):
    required_fields = ("url", "events")


class WebhookResumeSerializer(serializers.Serializer):
    """The body of resume (none at all is a plain resume)."""

    send_failed_again = StrictBooleanField(
        required=False,
        default=False,
        help_text="true: the failed deliveries of the last 30 days go again too, under their "
        'webhook-id, before the waiting ones (the web app\'s "Send the failed ones again").',
    )


class WebhookSerializer(serializers.ModelSerializer):
    """An endpoint without its secret."""

    trail_system_id = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPES))
    failing_since = JsDateTimeField(
        allow_null=True, help_text="Since when every attempt has failed; null when all is well."
    )
    paused_on = JsDateTimeField(
        allow_null=True,
        help_text="Since when sending is paused after a day of failures (its events wait, in "
        "order, until it is resumed); null when it is not.",
    )
    pause_reason = serializers.CharField(
        help_text="The last failure before the pause (empty when not paused)."
    )
    disabled_on = JsDateTimeField(
        source="paused_on",
        allow_null=True,
        help_text="The former name of pausedOn, kept for existing clients.",
    )
    created_on = JsDateTimeField()
    updated_on = JsDateTimeField()

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id", "trail_system_id", "url", "events", "active", "failing_since", "paused_on",
            "pause_reason", "disabled_on", "created_on", "created_by", "updated_on", "updated_by",
        ]  # fmt: skip
        read_only_fields = fields


class WebhookWithSecretSerializer(WebhookSerializer):
    """The creation and rotation answers: the endpoint and its signing secret, shown once."""

    secret = serializers.CharField(
        help_text="The signing secret (whsec_...); it cannot be shown again."
    )

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields

    def to_representation(self, with_secret) -> dict:
        return {**WebhookSerializer(with_secret.endpoint).data, "secret": with_secret.secret}
