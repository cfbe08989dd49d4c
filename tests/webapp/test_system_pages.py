"""The per-system overview, the index of one's systems, and inviting members by e-mail."""

import re

import pytest
from django.contrib.auth import SESSION_KEY

from apikeys.models import User
from core.compiles import request_compile
from publishing.models import CompileRequest
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, UserFactory
from trails.models import Membership

pytestmark = pytest.mark.django_db


def signed_in(client, user):
    client.force_login(user, backend="webapp.backends.RoleBackend")
    return client


def overview_url(system) -> str:
    return f"/admin/trails/trailsystem/{system.pk}/overview/"


def invite_url(system) -> str:
    return f"/admin/trails/trailsystem/{system.pk}/invite/"


def test_a_trustee_sees_the_overview_of_their_system_only(
    client, django_capture_on_commit_callbacks
):
    membership = MembershipFactory(user__uid="trustee")
    system = membership.trail_system
    TrailFactory(trail_system=system)
    CompileRequest.objects.create(trail_system=system, reason="test")
    signed_in(client, membership.user)

    index = client.get("/admin/").content.decode()
    assert overview_url(system) in index

    page = client.get(overview_url(system)).content.decode()
    assert f"http://127.0.0.1:8000/map/{system.pk}" in page
    assert "<svg" in page  # the QR code of the map's address
    assert 'id="counts"' in page
    # The copy-paste embed snippets for a club's website: the map and the status list.
    assert f"/embed/{system.pk}&quot;" in page
    assert f"/embed/{system.pk}/list&quot;" in page
    assert client.get(overview_url(TrailSystemFactory())).status_code == 404


def test_the_owner_reads_owner_and_an_administrator_member_administrator(client):
    system = TrailSystemFactory(owner=UserFactory(uid="owner"))
    member = MembershipFactory(trail_system=system, role="Administrator").user
    signed_in(client, system.owner)
    assert "Your role: Owner" in client.get(overview_url(system)).content.decode()
    assert "<td>Owner</td>" in client.get("/admin/").content.decode()
    french = client.get(overview_url(system), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Votre rôle : Propriétaire" in french
    signed_in(client, member)
    assert "Your role: Administrator" in client.get(overview_url(system)).content.decode()
    assert "<td>Administrator</td>" in client.get("/admin/").content.decode()


def test_the_overview_and_the_system_page_speak_french(client):
    system = TrailSystemFactory(owner=UserFactory(uid="owner-fr"))
    signed_in(client, system.owner)
    french = {"HTTP_ACCEPT_LANGUAGE": "fr-CA,fr;q=0.9"}

    overview = client.get(overview_url(system), **french).content.decode()
    assert "<h2>Intégrer à votre site</h2>" in overview
    assert "Copiez un extrait dans la page web de votre club" in overview
    assert "Embed on your website" not in overview

    change = client.get(f"/admin/trails/trailsystem/{system.pk}/change/", **french)
    assert "Télécharger l'export" in change.content.decode()


def test_an_administrator_invites_a_new_trustee_who_signs_in_with_the_link(client, mailoutbox):
    system = TrailSystemFactory()
    signed_in(client, system.owner)

    response = client.post(
        invite_url(system), {"email": "new.groomer@example.test", "role": "Trustee"}, follow=True
    )

    assert "a sign-in link is on its way" in response.content.decode()
    user = User.objects.get(email="new.groomer@example.test")
    assert Membership.objects.get(trail_system=system, user=user).role == "Trustee"
    (message,) = mailoutbox
    token = re.search(r"sesame=([^&\s]+)", message.body).group(1)
    client.logout()
    client.post("/admin/login/link/use/", {"sesame": token})
    assert client.session[SESSION_KEY] == user.pk
    assert client.get(overview_url(system)).status_code == 200


def test_inviting_an_existing_account_with_a_named_role_makes_no_new_account(client, mailoutbox):
    system = TrailSystemFactory()
    existing = UserFactory(email="known@example.test")
    signed_in(client, system.owner)
    client.post(
        invite_url(system),
        {"email": "Known@example.test", "role": "other", "role_name": "Groomer"},
    )
    assert Membership.objects.get(trail_system=system, user=existing).role == "Groomer"
    assert User.objects.filter(email__iexact="known@example.test").count() == 1
    assert mailoutbox[0].to == ["known@example.test"]


def test_a_bad_role_name_is_refused_and_nothing_is_kept(client, mailoutbox):
    system = TrailSystemFactory()
    signed_in(client, system.owner)
    response = client.post(
        invite_url(system), {"email": "x@example.test", "role": "other", "role_name": "Crew-42"}
    )
    assert "Invalid role" in response.content.decode()
    assert not User.objects.filter(email="x@example.test").exists()
    assert mailoutbox == []


def test_only_an_administrator_may_invite(client):
    """A Trustee is told the page is for another role; someone outside the system gets 404."""
    membership = MembershipFactory(user__uid="trustee")
    signed_in(client, membership.user)
    response = client.get(invite_url(membership.trail_system))
    assert response.status_code == 403
    assert "Not open to your role" in response.content.decode()
    signed_in(client, MembershipFactory(user__uid="outsider").user)
    assert client.get(invite_url(membership.trail_system)).status_code == 404


def autocomplete(client, model_name: str, field_name: str, term: str = ""):
    return client.get(
        "/admin/autocomplete/",
        {"app_label": "trails", "model_name": model_name, "field_name": field_name, "term": term},
    )


def test_autocompletes_never_expose_accounts_or_other_systems(client):
    system = TrailSystemFactory(name="Ours")
    TrailSystemFactory(name="Theirs")
    signed_in(client, system.owner)
    # Accounts: the owner picker is a superAdmin's, and its search is refused to everyone else.
    assert autocomplete(client, "trailsystem", "owner").status_code == 403
    found = autocomplete(client, "trail", "trail_system").json()["results"]
    assert [result["text"] for result in found] == ["Ours"]

    trustee = MembershipFactory(trail_system=system, user__uid="trustee").user
    signed_in(client, trustee)
    assert autocomplete(client, "trail", "trail_system").status_code == 403


def test_only_a_superadmin_transfers_ownership(client):
    system = TrailSystemFactory()
    signed_in(client, system.owner)
    page = client.get(f"/admin/trails/trailsystem/{system.pk}/change/").content.decode()
    assert 'name="owner"' not in page
    signed_in(client, UserFactory(uid="super", is_super_admin=True))
    page = client.get(f"/admin/trails/trailsystem/{system.pk}/change/").content.decode()
    assert 'name="owner"' in page


def test_the_invite_message_names_the_address_as_it_was_typed(client, mailoutbox):
    system = TrailSystemFactory()
    UserFactory(email="ann.groomer@example.test")
    signed_in(client, system.owner)

    response = client.post(
        invite_url(system), {"email": "Ann.Groomer@Example.test", "role": "Trustee"}, follow=True
    )

    assert "Ann.Groomer@Example.test is now Trustee of" in response.content.decode()
    assert len(mailoutbox) == 1


def test_the_overview_says_why_the_status_counts_leave_lifts_out(
    client, django_capture_on_commit_callbacks
):
    system = TrailSystemFactory()
    with django_capture_on_commit_callbacks(execute=True):
        TrailFactory(trail_system=system, status="Open")
        TrailFactory(trail_system=system, status="Open", type="Lift")
        request_compile(system, "test")
    signed_in(client, system.owner)

    page = client.get(overview_url(system)).content.decode()

    assert '<th scope="row">Trails</th><td>2</td>' in page
    assert '<th scope="row">Open trails</th><td>1</td>' in page
    assert "leave out 1 lift or hidden trail, as the public map" in page
