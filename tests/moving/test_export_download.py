"""The web app offers the export as a download to a system's Administrators only."""

import json

import pytest
from django.urls import reverse

from moving.exporting import export_collection
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def system():
    system = TrailSystemFactory(name="Pine Hill Nordic")
    TrailFactory(trail_system=system, name="Timber")
    return system


def signed_in(client, user):
    user.is_staff = True
    user.save()
    client.force_login(user)
    return client


def test_the_owner_downloads_the_export_as_a_file(client, system):
    response = signed_in(client, system.owner).get(reverse("export-download", args=[system.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/geo+json; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="pine-hill-nordic-{system.pk}.geojson"'
    )
    assert json.loads(response.content) == export_collection(system)


def test_an_administrator_member_and_a_super_admin_may_download(client, system):
    administrator = MembershipFactory(trail_system=system, role="Administrator").user
    url = reverse("export-download", args=[system.pk])
    assert signed_in(client, administrator).get(url).status_code == 200
    assert signed_in(client, UserFactory(is_super_admin=True)).get(url).status_code == 200


def test_a_trustee_or_a_stranger_is_refused(client, system):
    trustee = MembershipFactory(trail_system=system, role="Trustee").user
    url = reverse("export-download", args=[system.pk])
    assert signed_in(client, trustee).get(url).status_code == 403
    assert signed_in(client, UserFactory()).get(url).status_code == 403


def test_signing_in_comes_first(client, system):
    response = client.get(reverse("export-download", args=[system.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_an_unknown_system_is_not_found(client, system):
    response = signed_in(client, system.owner).get(reverse("export-download", args=["nope"]))
    assert response.status_code == 404


def test_the_system_page_links_to_the_download(client, system):
    staff = signed_in(client, UserFactory(is_superuser=True, is_super_admin=True))
    page = staff.get(reverse("admin:trails_trailsystem_change", args=[system.pk]))
    assert page.status_code == 200
    assert reverse("export-download", args=[system.pk]).encode() in page.content
