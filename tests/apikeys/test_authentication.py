"""The two credentials: how they are sent, verified and refused."""

import logging
import re
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from apikeys import keys
from apikeys.identity import firebase_app
from apikeys.models import ApiKey
from apikeys.tokens import mint_emulator_token
from core import limits
from tests.config.api_surface import assert_envelope
from tests.factories import UserFactory, create_api_key

ME = "/api/v1/me"


@pytest.fixture
def user(db):
    return UserFactory(uid="manager", email="manager@example.test")


def test_api_key_in_authorization_bearer(api, user):
    key, plaintext = create_api_key(user, name="ci", scopes=["read"])
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    body = api.get(ME).json()
    assert body["authType"] == "apiKey"
    assert body["scopes"] == ["read"]
    assert body["key"] == {
        "id": key.pk,
        "name": "ci",
        "prefix": plaintext[:11],
        "trailSystemIds": None,
    }


def test_api_key_in_x_api_key_header(api, user):
    _, plaintext = create_api_key(user)
    response = api.get(ME, HTTP_X_API_KEY=plaintext)
    assert response.status_code == 200
    assert response.json()["uid"] == "manager"


def test_id_token_has_read_and_write_and_no_key(api, user):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_emulator_token('manager', 'new@x.test')}")
    body = api.get(ME).json()
    assert body == {
        "uid": "manager",
        "email": "new@x.test",
        "authType": "idToken",
        "scopes": ["read", "write"],
        "superAdmin": False,
        "key": None,
    }


@pytest.mark.django_db
def test_first_id_token_of_a_new_account_creates_it(api):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_emulator_token('brand-new')}")
    assert api.get(ME).json()["uid"] == "brand-new"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "credential",
    [
        mint_emulator_token("manager", expires_in=-10),
        mint_emulator_token("manager", project_id="another-project"),
        mint_emulator_token("manager", iss="https://securetoken.google.com/another-project"),
        mint_emulator_token("manager", sub=""),
        "not.a.jwt",
        "eyJhbGciOiJub25lIn0.bm90IGpzb24.",
        "Bearer",
    ],
    ids=["expired", "wrong audience", "wrong issuer", "no subject", "malformed", "bad", "word"],
)
def test_bad_id_tokens_are_invalid_token(api, credential):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {credential}")
    response = api.get(ME)
    assert_envelope(response, 401, "invalid_token")
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.django_db
def test_non_bearer_scheme_is_refused(api):
    response = api.get(ME, HTTP_AUTHORIZATION="Basic dXNlcjpwdw==")
    assert_envelope(response, 401, "invalid_token")


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, {"HTTP_AUTHORIZATION": "Bearer "}, {"HTTP_X_API_KEY": ""}])
def test_no_credential_is_missing_credentials(api, headers):
    assert_envelope(api.get(ME, **headers), 401, "missing_credentials")


@pytest.mark.django_db
def test_x_api_key_that_is_not_a_key_is_invalid_api_key(api):
    assert_envelope(api.get(ME, HTTP_X_API_KEY="hello"), 401, "invalid_api_key")


def test_key_of_a_disabled_account_stops_working(api, user):
    _, plaintext = create_api_key(user)
    user.is_active = False
    user.save()
    assert_envelope(api.get(ME, HTTP_X_API_KEY=plaintext), 401, "invalid_api_key")


def test_key_with_a_changed_character_is_unknown(api, user):
    _, plaintext = create_api_key(user)
    tampered = plaintext[:-1] + ("A" if plaintext[-1] != "A" else "B")
    assert_envelope(api.get(ME, HTTP_X_API_KEY=tampered), 401, "invalid_api_key")


def test_keys_carry_256_random_bits_after_the_prefix():
    generated = {keys.generate_key() for _ in range(200)}
    assert len(generated) == 200
    for key in generated:
        assert key.startswith(settings.API_KEY_PREFIX)
        random_part = key[len(settings.API_KEY_PREFIX) :]
        # 43 URL-safe base64 characters encode 32 bytes.
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", random_part)


def test_one_firebase_app_per_process():
    assert firebase_app() is firebase_app()


def _stored_text() -> str:
    """Every row of every table, as text."""
    parts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT * FROM "{table}"')  # table names come from the database itself
            parts.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(parts)


def test_only_a_digest_of_the_key_is_stored_or_logged(api, user, caplog):
    caplog.set_level(logging.DEBUG)
    token = mint_emulator_token("manager")
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    with CaptureQueriesContext(connection) as queries:
        created = api.post("/api/v1/keys", {"name": "ci"}, format="json").json()
    plaintext = created["key"]
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert api.get(ME).status_code == 200
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert api.get("/api/v1/keys").status_code == 200

    secret = plaintext[len(settings.API_KEY_PREFIX) :]
    stored = _stored_text()
    assert secret not in stored
    assert keys.digest(plaintext) in stored
    assert secret not in caplog.text
    assert all(secret not in query["sql"] for query in queries.captured_queries)


def test_last_used_on_is_written_at_most_once_per_five_minutes(api, user):
    key, plaintext = create_api_key(user)
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")

    def key_writes(requests: int) -> int:
        with CaptureQueriesContext(connection) as queries:
            for _ in range(requests):
                assert api.get(ME).status_code == 200
        return sum(
            1
            for query in queries.captured_queries
            if query["sql"].startswith("UPDATE") and "apikeys_apikey" in query["sql"]
        )

    assert key_writes(100) == 1
    key.refresh_from_db()
    first_use = key.last_used_on
    assert timezone.now() - first_use < timedelta(minutes=1)

    ApiKey.objects.filter(pk=key.pk).update(last_used_on=first_use - timedelta(minutes=4))
    assert key_writes(10) == 0
    ApiKey.objects.filter(pk=key.pk).update(last_used_on=first_use - timedelta(minutes=6))
    assert key_writes(10) == 1
    key.refresh_from_db()
    assert key.last_used_on >= first_use


def test_key_made_elsewhere_without_read_still_reads(api, user):
    _, plaintext = create_api_key(user, scopes=["write"])
    assert api.get(ME, HTTP_X_API_KEY=plaintext).json()["scopes"] == ["read", "write"]


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_uses_write_last_used_on_once():
    """Many requests at the same moment: one conditional UPDATE wins, the others change nothing."""
    user = UserFactory(uid="busy")
    _, plaintext = create_api_key(user)
    rows_written = []
    start = threading.Barrier(8)

    def count_rows(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if sql.startswith("UPDATE") and "apikeys_apikey" in sql:
            rows_written.append(context["cursor"].rowcount)
        return result

    def use_key():
        client = APIClient()
        try:
            with connection.execute_wrapper(count_rows):
                start.wait()
                assert client.get(ME, HTTP_X_API_KEY=plaintext).status_code == 200
        finally:
            connection.close()

    threads = [threading.Thread(target=use_key) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(rows_written) == 1


@pytest.mark.parametrize(
    ("issued_ahead", "status"),
    [(0, 200), (limits.ID_TOKEN_CLOCK_SKEW_SECONDS - 5, 200), (3600, 401), (10**9, 401)],
)
def test_an_id_token_issued_in_the_future_beyond_the_clock_skew_is_refused(
    api, user, issued_ahead, status
):
    now = int(time.time())
    token = mint_emulator_token("manager", iat=now + issued_ahead, exp=now + issued_ahead + 3600)
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = api.get(ME)
    assert response.status_code == status
    if status == 401:
        assert response.json()["error"]["code"] == "invalid_token"


@pytest.mark.parametrize("iat", [None, "now", True])
def test_an_id_token_without_a_numeric_iat_is_refused(api, user, iat):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_emulator_token('manager', iat=iat)}")
    assert api.get(ME).status_code == 401


@pytest.mark.parametrize(
    "claims",
    [
        {"sub": "uid\x00x", "user_id": "uid\x00x"},
        {"sub": "uid\nx", "user_id": "uid\nx"},
        {"email": "a\x00@example.test"},
        {"email": 42},
    ],
)
def test_an_id_token_naming_an_impossible_account_is_refused_not_a_500(api, db, claims):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_emulator_token('manager', **claims)}")
    response = api.get(ME)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"
