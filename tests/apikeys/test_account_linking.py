"""An invited account and its holder's later Firebase sign-in are one account, not two."""

import pytest
from django.contrib.auth import SESSION_KEY

from apikeys.models import User
from apikeys.services import invite_member
from apikeys.tokens import mint_emulator_token
from core.actors import Actor, Via
from tests.factories import TrailFactory, TrailSystemFactory, UserFactory, create_api_key
from trails.models import Membership, StatusChange, Trail

pytestmark = pytest.mark.django_db

ME = "/api/v1/me"
FIREBASE_UID = "fb-uid-of-ann"


@pytest.fixture
def system():
    return TrailSystemFactory(owner=UserFactory(uid="owner", email="owner@example.test"))


@pytest.fixture
def invited(system):
    """Ann, invited as Trustee, who has worked with a key of her invited account and owns
    another system."""
    invitation = invite_member(
        system=system,
        email="Ann@Example.test",
        role="Trustee",
        actor=Actor(system.owner.uid, Via.WEB_APP),
    )
    TrailSystemFactory(name="Ann's own", owner=invitation.user)
    return invitation.user


def bearer(api, token: str):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return api


def test_a_verified_firebase_sign_in_takes_over_the_invited_account(api, system, invited):
    key, plaintext = create_api_key(invited)
    trail = TrailFactory(trail_system=system)
    response = bearer(api, plaintext).patch(
        f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json"
    )
    assert response.status_code == 200, response.content
    old_uid = invited.uid

    token = mint_emulator_token(FIREBASE_UID, "ann@example.test", email_verified=True)
    me = bearer(api, token).get(ME).json()

    assert me["uid"] == FIREBASE_UID
    assert not User.objects.filter(pk=old_uid).exists()
    assert Membership.objects.get(trail_system=system).user_id == FIREBASE_UID
    assert Membership.objects.get(trail_system=system).role == "Trustee"
    assert system.__class__.objects.get(name="Ann's own").owner_id == FIREBASE_UID
    assert Trail.objects.get(pk=trail.pk).updated_by == FIREBASE_UID
    assert set(StatusChange.objects.values_list("uid", flat=True)) == {FIREBASE_UID}
    assert User.objects.get(pk=FIREBASE_UID).invitation_pending is False
    # Her key keeps working, as her.
    assert bearer(api, plaintext).get(ME).json()["uid"] == FIREBASE_UID
    assert key.__class__.objects.get(pk=key.pk).user_id == FIREBASE_UID
    # The trustee sees the system she was invited to.
    systems = bearer(api, token).get("/api/v1/trail-systems").json()
    assert system.pk in {row["id"] for row in systems["trailSystems"]}


def test_a_web_app_token_sign_in_takes_over_the_invited_account(client, system, invited):
    token = mint_emulator_token(FIREBASE_UID, "ann@example.test", email_verified=True)
    response = client.post("/admin/login/token/", {"id_token": token})
    assert response.status_code == 302
    assert client.session[SESSION_KEY] == FIREBASE_UID
    assert system.name in client.get("/admin/").content.decode()
    assert User.objects.filter(email__iexact="ann@example.test").count() == 1


def test_an_unverified_address_never_takes_over_an_account(api, system, invited):
    token = mint_emulator_token(FIREBASE_UID, "ann@example.test", email_verified=False)
    assert bearer(api, token).get(ME).json()["uid"] == FIREBASE_UID
    assert Membership.objects.get(trail_system=system).user_id == invited.uid
    assert User.objects.get(pk=invited.uid).invitation_pending is True
    assert bearer(api, token).get("/api/v1/trail-systems").json()["trailSystems"] == []


def test_an_unverified_address_is_not_stored_so_a_later_invitation_never_reaches_it(api, system):
    """Anyone may register anyone's address in Firebase without proving it: an account seen
    only with that unproven address must not receive the role an invitation gives it."""
    token = mint_emulator_token("squatter", "ann@example.test", email_verified=False)
    assert bearer(api, token).get(ME).status_code == 200

    invitation = invite_member(
        system=system,
        email="ann@example.test",
        role="Trustee",
        actor=Actor(system.owner.uid, Via.WEB_APP),
    )

    assert invitation.user.uid != "squatter"
    assert User.objects.get(pk="squatter").email == ""
    assert bearer(api, token).get("/api/v1/trail-systems").json()["trailSystems"] == []


def test_an_account_that_signed_in_with_firebase_before_is_not_taken_over(api, system):
    """Only an invitation's account waits to be claimed; an existing Firebase account of the
    same address that is invited stays as it is, and a second Firebase uid gets its own."""
    firebase_account = UserFactory(uid="first-fb-uid", email="ann@example.test")
    invite_member(
        system=system,
        email="ann@example.test",
        role="Trustee",
        actor=Actor(system.owner.uid, Via.WEB_APP),
    )
    token = mint_emulator_token(FIREBASE_UID, "ann@example.test", email_verified=True)
    assert bearer(api, token).get(ME).json()["uid"] == FIREBASE_UID
    assert Membership.objects.get(trail_system=system).user_id == firebase_account.uid


def test_two_pending_accounts_with_the_address_are_left_alone(api, system):
    for uid in ("invited-a", "invited-b"):
        UserFactory(uid=uid, email="ann@example.test", invitation_pending=True)
    token = mint_emulator_token(FIREBASE_UID, "ann@example.test", email_verified=True)
    assert bearer(api, token).get(ME).json()["uid"] == FIREBASE_UID
    assert set(User.objects.filter(invitation_pending=True).values_list("pk", flat=True)) == {
        "invited-a",
        "invited-b",
    }


def test_a_known_firebase_uid_is_never_re_keyed(api, system, invited):
    UserFactory(uid=FIREBASE_UID, email="other@example.test")
    token = mint_emulator_token(FIREBASE_UID, "ann@example.test", email_verified=True)
    assert bearer(api, token).get(ME).json()["uid"] == FIREBASE_UID
    assert User.objects.get(pk=invited.uid).invitation_pending is True
