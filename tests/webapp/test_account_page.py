"""The account page (a superAdmin's) and the keys list: what decides access, in words."""

import pytest

from apikeys.models import User
from apikeys.services import ensure_account
from tests.factories import TrailSystemFactory, UserFactory, create_api_key

pytestmark = pytest.mark.django_db


def test_the_account_page_says_whether_an_invitation_waits_and_offers_no_groups(client):
    """Groups and model permissions grant nothing here (roles do), so the page does not offer
    them."""
    operator = UserFactory(uid="operator", is_super_admin=True)
    invited = UserFactory(uid="invited", invitation_pending=True)
    client.force_login(operator, backend="webapp.backends.RoleBackend")
    page = client.get(f"/admin/apikeys/user/{invited.pk}/change/").content.decode()
    assert 'name="is_super_admin"' in page
    assert "Invitation pending" in page
    assert 'name="groups"' not in page and 'name="user_permissions"' not in page


def test_the_keys_list_says_what_each_key_may_do_in_words(client):
    system = TrailSystemFactory(name="Bear Creek Nordic")
    create_api_key(system.owner, name="Tablet", scopes=["read"], trail_system_ids=[system.pk])
    create_api_key(system.owner, name="Laptop")
    client.force_login(system.owner, backend="webapp.backends.RoleBackend")
    rows = client.get("/admin/apikeys/apikey/").content.decode()
    assert "Read only" in rows and "Bear Creek Nordic" in rows
    assert "Read and write" in rows and "Every system its account manages" in rows
    assert "[&quot;read&quot;" not in rows


def test_an_account_made_on_the_fly_is_offered_no_password_change(client):
    """It signs in with Firebase or a link: there is no old password to give."""
    system = TrailSystemFactory(owner=ensure_account(uid="signed-in-by-link"))
    client.force_login(system.owner, backend="webapp.backends.RoleBackend")
    page = client.get("/admin/").content.decode()
    assert "/admin/logout/" in page
    assert "/admin/password_change/" not in page


def test_an_operator_makes_an_account_and_changes_only_what_they_changed(client):
    operator = UserFactory(uid="operator", is_super_admin=True)
    client.force_login(operator, backend="webapp.backends.RoleBackend")
    made = client.post(
        "/admin/apikeys/user/add/",
        {"uid": "groomer-1", "email": "groomer@example.test", "is_active": "on"},
    )
    assert made.status_code == 302, made.content.decode()[:2000]
    account = User.objects.get(uid="groomer-1")
    assert (account.email, account.is_active, account.is_super_admin) == (
        "groomer@example.test",
        True,
        False,
    )
    assert not account.has_usable_password()

    changed = client.post(
        f"/admin/apikeys/user/{account.pk}/change/",
        {"email": "groomer@example.test", "is_staff": "on", "is_active": "on"},
    )
    assert changed.status_code == 302, changed.content.decode()[:2000]
    account.refresh_from_db()
    assert (account.email, account.is_staff, account.is_active) == (
        "groomer@example.test",
        True,
        True,
    )
