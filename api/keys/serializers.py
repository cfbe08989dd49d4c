"""JSON shapes of /me and /keys, and type checks of the POST /keys body."""

from rest_framework import serializers

from api.fields import SingleLineCharField
from apikeys.credentials import API_KEY, ID_TOKEN
from apikeys.enums import KeyScope
from apikeys.models import ApiKey
from core.dates import iso_ms
from core.ids import ID_MAX_LENGTH
from core.limits import EXPIRES_IN_DAYS_MAX, KEY_SCOPES_MAX, KEY_SYSTEMS_MAX

KEY_NAME_MAX_LENGTH = 100


class StrictCharField(serializers.CharField):
    """A string and nothing else: DRF's CharField would turn 123 into "123"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON number with an integral value; strings and booleans are wrong types."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a misspelt option is never silently ignored."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = [name for name in data if name not in self.fields]
            if unknown:
                raise serializers.ValidationError(
                    {unknown[0]: [serializers.ErrorDetail("Unknown field.", code="invalid")]}
                )
        return super().to_internal_value(data)


class KeyCreateSerializer(StrictSerializer):
    """The POST /keys body; unknown fields are refused."""

    name = SingleLineCharField(min_length=1, max_length=KEY_NAME_MAX_LENGTH)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=KeyScope.choices),
        required=False,
        max_length=KEY_SCOPES_MAX,
        help_text="Subset of read and write; read is always added. Default: both.",
    )
    trail_system_ids = serializers.ListField(
        child=StrictCharField(max_length=ID_MAX_LENGTH),
        required=False,
        allow_null=True,
        allow_empty=False,
        min_length=1,
        max_length=KEY_SYSTEMS_MAX,
        help_text="Only these systems (each one you manage); null or absent: unrestricted.",
    )
    expires_in_days = StrictIntegerField(
        min_value=1,
        max_value=EXPIRES_IN_DAYS_MAX,
        required=False,
        allow_null=True,
        help_text="Days until the key expires; null or absent: never.",
    )


class KeyRecordSerializer(serializers.ModelSerializer):
    """The key record of spec section 2, without the plaintext."""

    scopes = serializers.ListField(child=serializers.ChoiceField(choices=KeyScope.choices))
    trail_system_ids = serializers.ListField(child=serializers.CharField(), allow_null=True)
    created_on = serializers.DateTimeField()
    last_used_on = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)

    DATE_FIELDS = ("created_on", "last_used_on", "expires_at")

    class Meta:
        model = ApiKey
        fields = [
            "id",
            "name",
            "prefix",
            "scopes",
            "trail_system_ids",
            "created_on",
            "last_used_on",
            "expires_at",
            "revoked",
        ]
        read_only_fields = fields

    def to_representation(self, instance: ApiKey) -> dict:
        data = super().to_representation(instance)
        for name in self.DATE_FIELDS:
            data[name] = iso_ms(getattr(instance, name))
        return data


class NewKeySerializer(KeyRecordSerializer):
    """The create response: the record plus the plaintext key, shown this once."""

    key = serializers.CharField(help_text="The plaintext key; it cannot be shown again.")

    class Meta(KeyRecordSerializer.Meta):
        fields = [*KeyRecordSerializer.Meta.fields, "key"]
        read_only_fields = fields

    def to_representation(self, new_key) -> dict:
        return {**KeyRecordSerializer(new_key.key).data, "key": new_key.plaintext}


class KeyListSerializer(serializers.Serializer):
    keys = KeyRecordSerializer(many=True)


class RevokedKeySerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    id = serializers.CharField()


class MeKeySerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    trail_system_ids = serializers.ListField(child=serializers.CharField(), allow_null=True)


class MeSerializer(serializers.Serializer):
    uid = serializers.CharField()
    email = serializers.CharField()
    auth_type = serializers.ChoiceField(choices=[API_KEY, ID_TOKEN])
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=KeyScope.choices))
    super_admin = serializers.BooleanField()
    key = MeKeySerializer(allow_null=True)
