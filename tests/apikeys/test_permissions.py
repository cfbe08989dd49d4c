"""Roles and key restrictions as the handlers of later issues use them: authorize(), role_for()
and managed_systems(), on requests authenticated the way the API authenticates them."""

import pytest
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from api.authentication import ApiKeyAuthentication, FirebaseIdTokenAuthentication
from api.permissions import authorize, permitted_systems
from core.errors import Forbidden
from tests.conftest import token_for
from tests.factories import MembershipFactory, TrailSystemFactory, UserFactory, create_api_key
from trails.selectors import managed_systems, role_for


def request_with(credential: str, method: str = "GET") -> Request:
    django_request = APIRequestFactory().generic(
        method, "/api/v1/anything", HTTP_AUTHORIZATION=f"Bearer {credential}"
    )
    request = Request(
        django_request,
        authenticators=[ApiKeyAuthentication(), FirebaseIdTokenAuthentication()],
    )
    assert request.user is not None
    return request


def refusal(request: Request, system, **kwargs) -> str:
    with pytest.raises(Forbidden) as raised:
        authorize(request, system, **kwargs)
    return raised.value.code


@pytest.fixture
def system(db):
    return TrailSystemFactory()


@pytest.mark.parametrize(
    ("role", "expected"),
    [("Administrator", "Administrator"), ("Trustee", "Trustee"), ("Groomer", "Groomer")],
)
def test_roles_from_membership(system, role, expected):
    member = MembershipFactory(trail_system=system, role=role).user
    assert role_for(member, system) == expected


def test_owner_and_super_admin_are_administrators(system):
    assert role_for(system.owner, system) == "Administrator"
    assert role_for(UserFactory(is_super_admin=True), system) == "Administrator"
    assert role_for(UserFactory(), system) is None


def test_named_roles_may_write_but_not_administer(system):
    groomer = MembershipFactory(trail_system=system, role="Groomer").user
    request = request_with(token_for(groomer), "PATCH")
    assert authorize(request, system) == "Groomer"
    assert refusal(request, system, admin=True) == "admin_required"


def test_non_manager_is_forbidden_even_when_admin_is_asked(system):
    request = request_with(token_for(UserFactory()))
    assert refusal(request, system) == "forbidden"
    assert refusal(request, system, admin=True) == "forbidden"


def test_key_restriction_comes_before_role(system):
    other = TrailSystemFactory(owner=UserFactory())
    outsider = UserFactory()
    _, plaintext = create_api_key(outsider, trail_system_ids=[other.pk])
    # Neither restriction nor role allows it; the restriction is reported.
    assert refusal(request_with(plaintext), system) == "key_restricted"


def test_key_restricted_to_the_system_still_needs_the_owners_role(system):
    trustee = MembershipFactory(trail_system=system).user
    _, plaintext = create_api_key(trustee, trail_system_ids=[system.pk])
    request = request_with(plaintext, "PATCH")
    assert authorize(request, system) == "Trustee"
    assert refusal(request, system, admin=True) == "admin_required"


def test_losing_membership_takes_effect_at_once_for_keys(system):
    membership = MembershipFactory(trail_system=system)
    _, plaintext = create_api_key(membership.user)
    assert authorize(request_with(plaintext), system) == "Trustee"
    membership.delete()
    assert refusal(request_with(plaintext), system) == "forbidden"


def test_losing_super_admin_takes_effect_at_once(system):
    admin = UserFactory(is_super_admin=True)
    _, plaintext = create_api_key(admin)
    assert authorize(request_with(plaintext), system, admin=True) == "Administrator"
    admin.is_super_admin = False
    admin.save()
    assert refusal(request_with(plaintext), system) == "forbidden"


def test_managed_systems(system):
    user = UserFactory()
    owned = TrailSystemFactory(owner=user)
    member_of = MembershipFactory(user=user).trail_system
    assert set(managed_systems(user)) == {owned, member_of}
    assert set(managed_systems(UserFactory(is_super_admin=True))) == {system, owned, member_of}


def test_permitted_systems_narrowed_by_key_restriction(system):
    user = UserFactory()
    first, second = TrailSystemFactory(owner=user), TrailSystemFactory(owner=user)
    _, restricted = create_api_key(user, trail_system_ids=[second.pk, system.pk])
    _, unrestricted = create_api_key(user)
    assert list(permitted_systems(request_with(restricted))) == [second]
    assert set(permitted_systems(request_with(unrestricted))) == {first, second}
