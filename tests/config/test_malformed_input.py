"""Malformed input on every write endpoint of the spec's summary table: always a 4xx in the
error envelope, never a 500 and never a success."""

import json

import pytest

from tests.config.api_surface import BODIES, WRITE_ROWS, Row, World, assert_envelope, call

BODY_ROWS = [row for row in WRITE_ROWS if str(row) in BODIES]
HUGE = "x" * 1_000_000  # under the 2 MB limit, over every length limit
THREE_MB = 3 * 1024 * 1024
NOT_JSON = (
    "{not json",
    '{"name": "T",}',
    "NaN",
    '{"name": Infinity}',
    "[" * 100_000,  # unbalanced and too deep
    "[" * 900 + "]" * 900,  # too deep to decode safely
)


def wrong_type(value):
    """A JSON value of another type than `value`."""
    return "not an object" if isinstance(value, dict) else {"unexpected": "object"}


def variants(body: dict) -> list[tuple[str, object]]:
    """(label, body) pairs that no endpoint may accept."""
    cases: list[tuple[str, object]] = [
        ("array body", [body]),
        ("string body", "text"),
        ("null body", None),
        ("unknown fields only", {"unknownField": 1, "another_one": [1]}),
    ]
    for name, value in body.items():
        cases.append((f"{name} of a wrong type", {**body, name: wrong_type(value)}))
        cases.append((f"{name} null", {**body, name: None}))
        cases.append((f"{name} huge string", {**body, name: HUGE}))
    return cases


def owner_client(world: World):
    return world.client("ID token of the owner")


def target(row: Row) -> tuple[World, str, object]:
    """A fresh world, the row's URL in it, and the owner's client."""
    world = World()
    return world, world.url(row), owner_client(world)


@pytest.mark.django_db
@pytest.mark.parametrize("row", BODY_ROWS, ids=str)
def test_body_that_is_not_json(row: Row):
    _, url, client = target(row)
    for raw in NOT_JSON:
        response = client.generic(row.method, url, raw, content_type="application/json")
        assert_envelope(response, 400, "invalid_json")
    form = client.generic(
        row.method, url, "name=T", content_type="application/x-www-form-urlencoded"
    )
    assert_envelope(form, 400, "invalid_json")


@pytest.mark.django_db
@pytest.mark.parametrize("row", BODY_ROWS, ids=str)
def test_wrong_types_nulls_huge_strings_unknown_fields(row: Row):
    world, url, client = target(row)
    for label, body in variants(world.body(row)):
        response = client.generic(
            row.method, url, json.dumps(body), content_type="application/json"
        )
        assert 400 <= response.status_code < 500, (
            label,
            response.status_code,
            response.content[:300],
        )
        # A route that exists: "not_found" would mean the request never reached it.
        assert assert_envelope(response)["code"] != "not_found", label


@pytest.mark.django_db
@pytest.mark.parametrize("row", WRITE_ROWS, ids=str)
def test_three_megabyte_body_is_refused_before_parsing(row: Row):
    world = World()
    body = json.dumps({"name": "x" * THREE_MB})
    response = owner_client(world).generic(
        row.method, world.url(row), body, content_type="application/json"
    )
    assert_envelope(response, 413, "payload_too_large")


@pytest.mark.django_db
def test_body_size_is_checked_before_credentials():
    response = (
        World()
        .client("none")
        .generic("POST", "/api/v1/keys", "x" * THREE_MB, content_type="application/json")
    )
    assert_envelope(response, 413, "payload_too_large")


@pytest.mark.django_db
@pytest.mark.parametrize("row", BODY_ROWS, ids=str)
def test_minimal_body_is_accepted(row: Row):
    """The bodies above are malformed only where the variants change them."""
    world = World()
    response = call(owner_client(world), row.method, world.url(row), world.body(row))
    assert response.status_code == row.success_status, response.content[:300]
