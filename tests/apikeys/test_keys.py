"""GET|POST|DELETE /keys and the services behind them."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apikeys import services
from apikeys.models import ApiKey
from tests.config.api_surface import assert_envelope
from tests.factories import MembershipFactory, TrailSystemFactory, UserFactory, create_api_key

KEYS = "/api/v1/keys"
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
RECORD_FIELDS = {
    "id",
    "name",
    "prefix",
    "scopes",
    "trailSystemIds",
    "createdOn",
    "lastUsedOn",
    "expiresAt",
    "revoked",
}


@pytest.fixture
def user(db):
    return UserFactory(uid="manager")


@pytest.fixture
def client(client_for, user):
    return client_for(user)


def create(client, **body):
    return client.post(KEYS, body, format="json")


def test_create_returns_the_record_and_the_plaintext_once(client):
    response = create(client, name="Grooming sync")
    assert response.status_code == 201
    record = response.json()
    assert set(record) == RECORD_FIELDS | {"key"}
    assert record["key"].startswith("tsk_")
    assert record["prefix"] == record["key"][:11]
    assert record["scopes"] == ["read", "write"]
    assert record["trailSystemIds"] is None
    assert record["expiresAt"] is None and record["lastUsedOn"] is None
    assert record["revoked"] is False
    assert ISO_MS.match(record["createdOn"])

    listed = client.get(KEYS).json()["keys"]
    assert [set(entry) for entry in listed] == [RECORD_FIELDS]
    assert listed[0]["id"] == record["id"]


@pytest.mark.parametrize(
    ("scopes", "stored"),
    [(["read"], ["read"]), (["write"], ["read", "write"]), ([], ["read"]), (None, None)],
)
def test_scopes_always_include_read(client, scopes, stored):
    body = {"name": "k"} if scopes is None else {"name": "k", "scopes": scopes}
    assert create(client, **body).json()["scopes"] == (stored or ["read", "write"])


def test_expiry_in_days(client):
    record = create(client, name="k", expiresInDays=30).json()
    expires = timezone.datetime.fromisoformat(record["expiresAt"].replace("Z", "+00:00"))
    assert abs(expires - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    assert ISO_MS.match(record["expiresAt"])


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({}, "missing_field", "name"),
        ({"name": ""}, "invalid_field", "name"),
        ({"name": "x" * 101}, "invalid_field", "name"),
        ({"name": 123}, "invalid_field", "name"),
        ({"name": None}, "invalid_field", "name"),
        ({"name": "k", "scopes": ["admin"]}, "invalid_field", "scopes[0]"),
        ({"name": "k", "scopes": "read"}, "invalid_field", "scopes"),
        ({"name": "k", "expiresInDays": 0}, "invalid_field", "expiresInDays"),
        ({"name": "k", "expiresInDays": 3651}, "invalid_field", "expiresInDays"),
        ({"name": "k", "expiresInDays": "30"}, "invalid_field", "expiresInDays"),
        ({"name": "k", "expiresInDays": 1.5}, "invalid_field", "expiresInDays"),
        ({"name": "k", "trailSystemIds": []}, "invalid_field", "trailSystemIds"),
        ({"name": "k", "trailSystemIds": [7]}, "invalid_field", "trailSystemIds[0]"),
        ({"name": "k", "expiresIn": 30}, "invalid_field", "expiresIn"),
    ],
)
def test_invalid_bodies_name_the_field(client, body, code, field):
    error = assert_envelope(create(client, **body), 400, code)
    assert error["message"].startswith(f"{field}:")
    assert ApiKey.objects.count() == 0


def test_boundaries_are_accepted(client):
    assert create(client, name="x" * 100, expiresInDays=3650).status_code == 201
    assert create(client, name="x", expiresInDays=1).status_code == 201


def test_restriction_to_systems_the_caller_manages(client, user):
    owned = TrailSystemFactory(owner=user)
    member_of = MembershipFactory(user=user).trail_system
    record = create(client, name="k", trailSystemIds=[owned.pk, member_of.pk, owned.pk]).json()
    assert record["trailSystemIds"] == [owned.pk, member_of.pk]

    someone_elses = TrailSystemFactory()
    error = assert_envelope(
        create(client, name="k", trailSystemIds=[owned.pk, someone_elses.pk]), 403, "forbidden"
    )
    assert someone_elses.pk in error["message"]
    assert_envelope(create(client, name="k", trailSystemIds=["nope"]), 403, "forbidden")


@pytest.mark.django_db
def test_super_admin_may_restrict_to_any_system(client_for):
    admin = UserFactory(is_super_admin=True)
    system = TrailSystemFactory()
    response = create(client_for(admin), name="k", trailSystemIds=[system.pk])
    assert response.json()["trailSystemIds"] == [system.pk]


def test_twenty_five_active_keys_then_too_many_keys(client, user):
    for index in range(24):
        create_api_key(user, name=f"k{index}")
    create_api_key(user, name="revoked", revoked=True)
    create_api_key(user, name="expired", expires_at=timezone.now() - timedelta(seconds=1))
    assert create(client, name="25th").status_code == 201
    assert_envelope(create(client, name="26th"), 400, "too_many_keys")
    assert services.active_keys(user).count() == 25


def test_list_is_newest_first_and_includes_revoked_keys(client, user):
    now = timezone.now()
    create_api_key(user, name="old", created_on=now - timedelta(days=2))
    revoked, _ = create_api_key(user, name="revoked", created_on=now - timedelta(days=1))
    services.revoke_key(user=user, key_id=revoked.pk)
    create_api_key(UserFactory(), name="not mine")
    new = create(client, name="new").json()
    listed = client.get(KEYS).json()["keys"]
    assert [entry["name"] for entry in listed] == ["new", "revoked", "old"]
    assert [entry["revoked"] for entry in listed] == [False, True, False]
    assert listed[0]["id"] == new["id"]


def test_revoke_takes_effect_at_once(client, api, user):
    key, plaintext = create_api_key(user)
    assert api.get("/api/v1/me", HTTP_X_API_KEY=plaintext).status_code == 200
    response = client.delete(f"{KEYS}/{key.pk}")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "id": key.pk}
    assert_envelope(api.get("/api/v1/me", HTTP_X_API_KEY=plaintext), 401, "revoked_api_key")
    assert client.delete(f"{KEYS}/{key.pk}").status_code == 200


def test_revoke_only_own_keys(client):
    someone_elses, _ = create_api_key(UserFactory())
    assert_envelope(client.delete(f"{KEYS}/{someone_elses.pk}"), 404, "key_not_found")
    assert_envelope(client.delete(f"{KEYS}/no-such-key"), 404, "key_not_found")
    someone_elses.refresh_from_db()
    assert someone_elses.revoked is False


def test_expired_key_is_refused(api, user):
    _, plaintext = create_api_key(user, expires_at=timezone.now() - timedelta(seconds=1))
    assert_envelope(api.get("/api/v1/me", HTTP_X_API_KEY=plaintext), 401, "expired_api_key")


def test_api_keys_cannot_manage_keys_whatever_their_scopes(client_for, user):
    _, plaintext = create_api_key(user, scopes=["read"])
    key_client = client_for(credential=plaintext)
    for response in (
        key_client.get(KEYS),
        create(key_client, name="k"),
        key_client.delete(f"{KEYS}/anything"),
    ):
        assert_envelope(response, 403, "id_token_required")


def test_create_key_service(user):
    system = TrailSystemFactory(owner=user)
    new = services.create_key(
        user=user, name="svc", scopes=["write"], trail_system_ids=[system.pk], expires_in_days=1
    )
    assert new.plaintext.startswith("tsk_")
    stored = ApiKey.objects.get(pk=new.key.pk)
    assert stored.scopes == ["read", "write"]
    assert stored.trail_system_ids == [system.pk]
    assert stored.digest != new.plaintext and new.plaintext not in stored.digest
    assert [key.pk for key in services.list_keys(user)] == [stored.pk]
    assert services.revoke_key(user=user, key_id=stored.pk).revoked is True
