"""A superAdmin's page of an account: what decides access there, and nothing that does not."""

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_account_page_offers_no_groups_or_model_permissions(client):
    """They grant nothing in the web app (roles do), so the page does not offer them."""
    operator = UserFactory(uid="operator", is_super_admin=True)
    invited = UserFactory(uid="invited", invitation_pending=True)
    client.force_login(operator, backend="webapp.backends.RoleBackend")
    page = client.get(f"/admin/apikeys/user/{invited.pk}/change/").content.decode()
    assert 'name="is_super_admin"' in page
    assert 'name="groups"' not in page
    assert 'name="user_permissions"' not in page
    assert "Invitation pending" in page
