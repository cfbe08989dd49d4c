"""Every endpoint of the spec's summary table, called with every kind of credential.

The expected status and code come from the spec's rules (sections 5 and 7), applied in the
documented order: credential (401) -> scope (403 insufficient_scope) -> existence (404) ->
key restriction (403 key_restricted) -> role (403 forbidden, then admin_required).
"""

import pytest

from tests.config.api_surface import ROWS, Row, World, assert_envelope, call

CREDENTIAL_FAILURES = {
    "none": (401, "missing_credentials"),
    "garbage": (401, "invalid_token"),
    "unknown key": (401, "invalid_api_key"),
    "revoked key": (401, "revoked_api_key"),
    "expired key": (401, "expired_api_key"),
}
# Valid credentials and the role their bearer holds on the world's trail system. The two
# keys belong to the owner, so only their scope or restriction can stop them.
VALID_CREDENTIALS = {
    "read-only key": "Administrator",
    "key restricted to another system": "Administrator",
    "ID token of a non-manager": None,
    "ID token of a trustee": "Trustee",
    "ID token of an Administrator member": "Administrator",
    "ID token of the owner": "Administrator",
    "ID token of a superAdmin": "Administrator",
}
KINDS = [*CREDENTIAL_FAILURES, *VALID_CREDENTIALS]


def expected(row: Row, kind: str) -> tuple[int, str | None]:
    """What the spec answers to `kind` calling `row`: (status, error code or None)."""
    if row.credential == "none":
        return row.success_status, None
    if kind in CREDENTIAL_FAILURES:
        return CREDENTIAL_FAILURES[kind]
    is_key = not kind.startswith("ID token")
    if row.credential == "ID token":
        if is_key:
            return 403, "id_token_required"
        # The key named in the path belongs to the owner; nobody else may revoke it.
        if row.resource == "key" and kind != "ID token of the owner":
            return 404, "key_not_found"
        return row.success_status, None
    if row.scope == "write" and kind == "read-only key":
        return 403, "insufficient_scope"
    if not row.on_a_system:
        return row.success_status, None
    # A rider's report (its address, its photo) is not told to exist to a caller who may not
    # read it, as another system's report is not (issue 40's attack pass).
    if row.resource == "report" and kind in (
        "key restricted to another system",
        "ID token of a non-manager",
    ):
        return 404, "report_not_found"
    if kind == "key restricted to another system":
        return 403, "key_restricted"
    role = VALID_CREDENTIALS[kind]
    if role is None:
        return 403, "forbidden"
    if row.credential == "Administrator" and role != "Administrator":
        return 403, "admin_required"
    return row.success_status, None


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("row", ROWS, ids=str)
def test_access(row: Row, kind: str):
    world = World()
    status, code = expected(row, kind)
    response = call(world.client(kind), row.method, world.url(row), world.body(row))
    if code is None:
        assert response.status_code == status, response.content[:300]
        assert response["Content-Type"].startswith("application/json")
    else:
        assert_envelope(response, status, code)
