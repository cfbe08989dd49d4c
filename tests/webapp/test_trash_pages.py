"""Delete in the web app as the spec's DELETE: a live trail or point goes to the trash, for any
member, restorable there; deleting for good is only from the trash, by an Administrator."""

import orjson
import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.core.files.storage import default_storage

from core.actors import Actor, Via
from publishing.models import CompileRequest
from tests.factories import MembershipFactory, PointFactory, TrailFactory
from trails.models import Point, Trail
from trails.trash import trash_trail

pytestmark = pytest.mark.django_db

TRAILS = "/admin/trails/trail/"
COLLEAGUE = Actor("uid-colleague", Via.WEB_APP)
POINTS = "/admin/trails/point/"
TRASHED_TRAILS = "/admin/trails/trashedtrail/"


def signed_in(client, role: str):
    membership = MembershipFactory(user__uid=role.lower(), role=role)
    client.force_login(membership.user, backend="webapp.backends.RoleBackend")
    client.system = membership.trail_system
    client.user = membership.user
    return client


@pytest.fixture
def trustee(client):
    return signed_in(client, "Trustee")


@pytest.fixture
def administrator(client):
    return signed_in(client, "Administrator")


def published_names(system) -> set[str]:
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        return {f["properties"]["name"] for f in orjson.loads(stored.read())["features"]}


def messages_of(response) -> list[str]:
    return [m.message for m in response.context["messages"]]


def test_a_trustees_delete_moves_the_trail_to_the_trash_and_off_the_published_file(
    trustee, django_capture_on_commit_callbacks
):
    system = trustee.system
    trail = TrailFactory(trail_system=system, name="Beaver Pond")
    TrailFactory(trail_system=system, name="Meadow Loop")

    confirmation = trustee.get(f"{TRAILS}{trail.pk}/delete/").content.decode()
    assert "will go to the trash" in confirmation
    assert "can be restored from the trash" in confirmation
    assert "deleted:" not in confirmation
    with django_capture_on_commit_callbacks(execute=True):
        response = trustee.post(f"{TRAILS}{trail.pk}/delete/", {"post": "yes"}, follow=True)

    assert messages_of(response) == [
        "The trail “Beaver Pond” was moved to the trash, where it can be restored."
    ]
    assert Trail.trash.get(pk=trail.pk).trashed_by == "trustee"
    assert published_names(system) == {"Meadow Loop"}
    assert "Beaver Pond" in trustee.get(TRASHED_TRAILS).content.decode()


def test_delete_selected_moves_the_points_to_the_trash_with_one_compile_request(trustee):
    system = trustee.system
    points = [PointFactory(trail_system=system) for _ in range(3)]
    CompileRequest.objects.all().delete()
    selected = {"action": "delete_selected", "_selected_action": [p.pk for p in points]}

    confirmation = trustee.post(POINTS, selected).content.decode()
    assert "The selected points will go to the trash" in confirmation
    response = trustee.post(POINTS, selected | {"post": "yes"}, follow=True)

    assert messages_of(response) == ["Moved to the trash, where they can be restored: 3."]
    assert Point.trash.filter(pk__in=[p.pk for p in points]).count() == 3
    assert CompileRequest.objects.filter(trail_system=system).count() == 1


def test_a_trail_someone_else_trashed_meanwhile_is_left_as_it_is_and_the_others_go(trustee):
    system = trustee.system
    kept, gone = TrailFactory(trail_system=system), TrailFactory(trail_system=system, name="Gone")
    page = trustee.get(f"{TRAILS}{gone.pk}/delete/")  # the page read before the colleague's move
    assert page.status_code == 200
    trash_trail(trail=gone, actor=COLLEAGUE)

    response = trustee.post(f"{TRAILS}{gone.pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 404  # no longer a live trail: nothing more to do

    response = trustee.post(
        TRAILS,
        {"action": "delete_selected", "_selected_action": [kept.pk, gone.pk], "post": "yes"},
        follow=True,
    )
    assert messages_of(response) == [
        "Moved to the trash, where they can be restored: 1.",
        "1 selected trail is no longer in this list (someone else moved, restored or deleted "
        "it meanwhile); it was left as it is.",
    ]
    assert Trail.trash.filter(pk=kept.pk).exists()
    assert Trail.trash.get(pk=gone.pk).trashed_by == "uid-colleague"


def test_a_trustee_cannot_delete_from_the_trash(trustee):
    trail = TrailFactory(trail_system=trustee.system)
    trash_trail(trail=trail, actor=COLLEAGUE)

    assert trustee.get(f"{TRASHED_TRAILS}{trail.pk}/delete/").status_code == 403
    assert trustee.post(f"{TRASHED_TRAILS}{trail.pk}/delete/", {"post": "yes"}).status_code == 403
    response = trustee.post(
        TRASHED_TRAILS,
        {"action": "delete_selected", "_selected_action": [trail.pk], "post": "yes"},
        follow=True,
    )
    assert "No action selected." in response.content.decode()
    assert Trail.trash.filter(pk=trail.pk).exists()


def test_an_administrator_deletes_from_the_trash_for_good(administrator):
    system = administrator.system
    trails = [TrailFactory(trail_system=system) for _ in range(2)]
    for trail in trails:
        trash_trail(trail=trail, actor=COLLEAGUE)
    CompileRequest.objects.all().delete()

    response = administrator.post(
        TRASHED_TRAILS,
        {"action": "delete_selected", "_selected_action": [t.pk for t in trails], "post": "yes"},
        follow=True,
    )

    assert messages_of(response) == ["Deleted for good: 2."]
    assert not Trail.all_objects.filter(pk__in=[t.pk for t in trails]).exists()
    assert CompileRequest.objects.filter(trail_system=system).count() == 1
    deletions = LogEntry.objects.filter(action_flag=DELETION, user__uid="administrator")
    assert sorted(deletions.values_list("object_id", flat=True)) == sorted(t.pk for t in trails)


def test_a_selection_with_a_row_the_role_may_not_delete_deletes_nothing(administrator):
    ours = TrailFactory(trail_system=administrator.system)
    theirs = MembershipFactory(user=administrator.user, role="Trustee").trail_system
    trustee_only = TrailFactory(trail_system=theirs)
    for trail in (ours, trustee_only):
        trash_trail(trail=trail, actor=COLLEAGUE)
    selected = {"action": "delete_selected", "_selected_action": [ours.pk, trustee_only.pk]}

    page = administrator.post(TRASHED_TRAILS, selected).content.decode()
    assert "Cannot delete trashed trails" in page
    assert administrator.post(TRASHED_TRAILS, selected | {"post": "yes"}).status_code == 403
    assert Trail.trash.filter(pk__in=[ours.pk, trustee_only.pk]).count() == 2
