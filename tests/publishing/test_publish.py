"""Publishing against the database and the local storage, with tasks run in-process after
commit (the embedded default)."""

from datetime import timedelta
from urllib.parse import urlsplit

import orjson
import pytest
from django.core.files.storage import FileSystemStorage, default_storage
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from publishing.compile import compile_rows
from publishing.models import CompileRequest
from publishing.publisher import (
    build_all_systems_file,
    compile_pending,
    kept_compiles,
    read_all_systems_file,
    sweep_replaced_files,
)
from publishing.scheduling import TRUST_PENDING_FOR, record_compile_request
from publishing.selectors import load_system_rows
from publishing.storage import (
    ALL_SYSTEMS_NAME,
    GEOJSON_CONTENT_TYPE,
    IMMUTABLE_CACHE_CONTROL,
    MAP_FILES_DIR,
    new_map_name,
    public_url,
    write_file,
)
from publishing.storage_backends import PublishedGoogleCloudStorage, PublishedS3Storage
from publishing.tasks import sweep_pending_compiles, sweep_replaced_map_files
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
)
from trails.models import Trail, TrailActivity, TrailSystem

pytestmark = pytest.mark.django_db

# A map file as a compile of a system without trails writes it.
EMPTY_MAP = b'{"type": "FeatureCollection", "features": []}'


def published(system: TrailSystem) -> dict:
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        return orjson.loads(stored.read())


def write(system, capture) -> None:
    """A write as every service does it: rows and the compile request in one transaction."""
    with capture(execute=True), transaction.atomic():
        record_compile_request(system, reason="test")


@pytest.fixture
def system():
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, status="None", distance=2.0)
    TrailActivityFactory(trail=trail, value="skiing", status="Caution")
    PointFactory(trail_system=system, description="secret", web_cam_url="https://cam.test")
    return system


def test_a_write_publishes_a_file_and_stores_the_statistics(
    system, django_capture_on_commit_callbacks
):
    write(system, django_capture_on_commit_callbacks)

    collection = published(system)
    statuses = [f["properties"].get("status") for f in collection["features"]]
    assert statuses == ["Caution", "Open"]
    assert (system.total_trails, system.caution_trails, system.total_distance) == (1, 1, 2.0)
    assert system.activity_totals[0]["value"] == "skiing"
    assert system.compiled_on is not None
    assert public_url(system.geo_json_path).startswith("/media/published/maps/")
    request = CompileRequest.objects.get()
    assert request.done_on is not None
    assert request.published_path == system.geo_json_path


def test_the_published_file_is_served_as_geojson_without_credentials(
    system, client, django_capture_on_commit_callbacks
):
    write(system, django_capture_on_commit_callbacks)
    system.refresh_from_db()

    response = client.get(public_url(system.geo_json_path))

    assert response.status_code == 200
    assert response["Content-Type"] == GEOJSON_CONTENT_TYPE
    assert orjson.loads(b"".join(response.streaming_content)) == published(system)


def test_a_bulk_write_to_one_trail_is_in_the_next_incremental_compile(
    system, django_capture_on_commit_callbacks
):
    other = TrailFactory(trail_system=system, name="Other")
    TrailActivityFactory(trail=other, value="skiing", status="Open")
    write(system, django_capture_on_commit_callbacks)  # every trail encoded and kept
    moved = {"type": "LineString", "coordinates": [[-72.5, 43.5], [-72.4, 43.4]]}
    trail = system.trails.exclude(name="Other").get()

    # Bulk updates: no save(), no updated_on; only the row versions tell what changed.
    Trail.objects.filter(pk=trail.pk).update(geometry=moved, name="Renamed")
    TrailActivity.objects.filter(trail=other).update(status="Closed")
    write(system, django_capture_on_commit_callbacks)

    system.refresh_from_db()
    features = {f["properties"]["name"]: f for f in published(system)["features"][:2]}
    assert features["Renamed"]["geometry"] == moved
    assert [a["status"] for a in features["Other"]["properties"]["activities"]] == ["Closed"]
    now = timezone.now()
    assert (
        published(system) == compile_rows(load_system_rows(system.pk, now), now).feature_collection
    )


def test_the_file_equals_a_compile_of_the_current_rows(system, django_capture_on_commit_callbacks):
    UpdateFactory(trail_system=system, type="snowReport", base_depth=50)
    write(system, django_capture_on_commit_callbacks)

    system.refresh_from_db()
    expected = compile_rows(load_system_rows(system.pk, timezone.now()), timezone.now())
    assert published(system) == expected.feature_collection
    assert [u["baseDepth"] for u in system.published_updates["snowReport"]] == [50.0]


def test_each_compile_writes_a_new_name_and_keeps_the_previous_file_for_a_while(
    system, django_capture_on_commit_callbacks
):
    write(system, django_capture_on_commit_callbacks)
    system.refresh_from_db()
    first = system.geo_json_path

    TrailFactory(trail_system=system, name="Second trail")
    write(system, django_capture_on_commit_callbacks)
    system.refresh_from_db()

    assert system.geo_json_path != first
    assert timezone.now().strftime("%Y%m%d") in system.geo_json_path
    assert default_storage.exists(first)
    assert len(published(system)["features"]) == 3


def test_a_file_named_by_the_legacy_document_is_served_after_the_next_compile(
    client, system, django_capture_on_commit_callbacks
):
    write(system, django_capture_on_commit_callbacks)
    named = orjson.loads(client.get(f"/legacy/ts/{system.pk}").content)["geoJsonUrl"]
    before = client.get(urlsplit(named).path)

    TrailFactory(trail_system=system, name="Second trail")
    write(system, django_capture_on_commit_callbacks)
    write(system, django_capture_on_commit_callbacks)

    assert orjson.loads(client.get(f"/legacy/ts/{system.pk}").content)["geoJsonUrl"] != named
    after = client.get(urlsplit(named).path)
    assert after.status_code == before.status_code == 200
    assert b"".join(after.streaming_content) == b"".join(before.streaming_content)


def map_files(system: TrailSystem) -> list[str]:
    """Without their compressed copies."""
    names = default_storage.listdir(f"{MAP_FILES_DIR}/{system.pk}")[1]
    return sorted(name for name in names if name.endswith(".geojson"))


def file_name(path: str) -> str:
    return path.rsplit("/", 1)[1]


class ListingCountingStorage(FileSystemStorage):
    """The local storage, counting its folder listings (a LIST request on S3 or GCS)."""

    listings = 0

    def listdir(self, path):
        type(self).listings += 1
        return super().listdir(path)


@pytest.fixture
def counted_listings(settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": f"{__name__}.ListingCountingStorage"},
    }
    ListingCountingStorage.listings = 0
    return ListingCountingStorage


def time_passes(delta: timedelta) -> None:
    """The compiles so far were done `delta` earlier: the grace of their files runs from then."""
    CompileRequest.objects.update(done_on=F("done_on") - delta)


@pytest.mark.parametrize("storage_backend", ["local", "memory"])
def test_a_compile_removes_the_files_replaced_more_than_the_grace_ago(
    system, django_capture_on_commit_callbacks, settings, storage_backend
):
    if storage_backend == "memory":
        settings.STORAGES = {
            **settings.STORAGES,
            "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
        }
    for _ in range(3):
        write(system, django_capture_on_commit_callbacks)
    first, second, third = files = map_files(system)
    assert len(files) == 3

    # The second and third compiles were done a grace period and a second ago: the first file
    # was replaced that long ago, the second file by the third compile, a moment later.
    time_passes(settings.MAP_FILE_GRACE + timedelta(seconds=1))
    write(system, django_capture_on_commit_callbacks)

    system.refresh_from_db()
    assert map_files(system) == [third, file_name(system.geo_json_path)]
    assert second not in map_files(system) and first not in map_files(system)


def test_a_compile_lists_no_storage_and_the_sweep_lists_each_system_once(
    system, django_capture_on_commit_callbacks, settings, counted_listings
):
    for _ in range(3):
        write(system, django_capture_on_commit_callbacks)
    time_passes(settings.MAP_FILE_GRACE + timedelta(seconds=1))
    write(system, django_capture_on_commit_callbacks)
    assert counted_listings.listings == 0
    assert len(map_files(system)) == 2  # what the compile removed, it removed by name
    counted_listings.listings = 0

    assert sweep_replaced_files(timezone.now() + settings.MAP_FILE_GRACE) == 1
    assert counted_listings.listings == 1


def test_the_sweep_removes_replaced_files_of_systems_no_longer_compiled(
    system, django_capture_on_commit_callbacks, settings
):
    for _ in range(3):
        write(system, django_capture_on_commit_callbacks)
    system.refresh_from_db()
    assert sweep_replaced_map_files() == 0
    assert len(map_files(system)) == 3

    assert sweep_replaced_files(timezone.now() + settings.MAP_FILE_GRACE) == 2

    assert map_files(system) == [file_name(system.geo_json_path)]
    assert published(system)["features"]


def test_a_failed_compiles_file_does_not_shorten_the_grace_of_the_file_it_follows(
    system, django_capture_on_commit_callbacks, settings
):
    write(system, django_capture_on_commit_callbacks)
    system.refresh_from_db()
    replaced = system.geo_json_path
    # A compile that wrote its file and died before its commit: its name is older than the
    # next compile's, which replaces the first file only when it is done.
    orphan = write_file(new_map_name(system.pk, timezone.now()), EMPTY_MAP)
    write(system, django_capture_on_commit_callbacks)
    replaced_on = CompileRequest.objects.latest("done_on").done_on
    grace = settings.MAP_FILE_GRACE

    sweep_replaced_files(replaced_on + grace - timedelta(microseconds=1))
    assert default_storage.exists(replaced)
    assert not default_storage.exists(orphan)

    sweep_replaced_files(replaced_on + grace)
    assert not default_storage.exists(replaced)
    system.refresh_from_db()
    assert map_files(system) == [file_name(system.geo_json_path)]


def test_a_storage_failure_leaves_the_previous_file_published(
    system, django_capture_on_commit_callbacks, settings, tmp_path
):
    write(system, django_capture_on_commit_callbacks)
    system.refresh_from_db()
    before = (system.geo_json_path, system.total_trails)
    TrailFactory(trail_system=system)
    good_root = settings.MEDIA_ROOT
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    settings.MEDIA_ROOT = blocker

    write(system, django_capture_on_commit_callbacks)  # the write itself succeeds

    settings.MEDIA_ROOT = good_root
    system.refresh_from_db()
    assert (system.geo_json_path, system.total_trails) == before
    assert default_storage.exists(system.geo_json_path)
    assert CompileRequest.objects.pending().count() == 1

    sweep_pending_compiles()

    system.refresh_from_db()
    assert system.total_trails == 2
    assert not CompileRequest.objects.pending().exists()


def test_a_write_while_a_compile_is_coming_waits_for_that_compile(
    system, django_capture_on_commit_callbacks
):
    # A request whose compile is queued and has not run yet (recorded in another process).
    CompileRequest.objects.create(trail_system=system, reason="queued elsewhere")

    write(system, django_capture_on_commit_callbacks)

    assert CompileRequest.objects.pending().count() == 2
    system.refresh_from_db()
    assert system.geo_json_path == ""


def test_a_write_after_a_lost_compile_is_published_without_waiting_for_the_sweep(
    system, django_capture_on_commit_callbacks
):
    # A request whose compile was lost (broker down, failed compile) longer ago than it is
    # trusted: the next write compiles, serving both.
    CompileRequest.objects.create(
        trail_system=system,
        reason="lost",
        requested_on=timezone.now() - TRUST_PENDING_FOR - timedelta(seconds=1),
    )

    write(system, django_capture_on_commit_callbacks)

    assert not CompileRequest.objects.pending().exists()
    assert published(system)["features"]


def test_nothing_pending_means_no_compile(system):
    assert compile_pending(system.pk) is None
    system.refresh_from_db()
    assert system.geo_json_path == ""


def test_compile_reads_a_fixed_number_of_queries_whatever_the_size(system):
    def queries_for_one_compile() -> int:
        CompileRequest.objects.create(trail_system=system)
        with CaptureQueriesContext(connection) as captured:
            compile_pending(system.pk)
        return len(captured)

    def add(count: int) -> None:
        for _ in range(count):
            trail = TrailFactory(trail_system=system)
            TrailActivityFactory(trail=trail)
            update = UpdateFactory(
                trail_system=system, type="surfaceConditions", conditions=["icy"]
            )
            update.trails.add(trail)
            PointFactory(trail_system=system)

    queries_for_one_compile()  # the closures file written once; later compiles find it as is
    kept_compiles.forget(system.pk)
    first = queries_for_one_compile()  # a process's first: every trail read
    add(1)
    small = queries_for_one_compile()  # what changed: the trail added
    add(20)

    assert queries_for_one_compile() == small
    kept_compiles.forget(system.pk)
    assert queries_for_one_compile() == first


def test_trashed_rows_and_expired_updates_are_not_read(system):
    trashed = TrailFactory(trail_system=system, trashed_on=timezone.now())
    PointFactory(trail_system=system, trashed_on=timezone.now())
    live = TrailFactory(trail_system=system)
    notice = UpdateFactory(trail_system=system, description="on trails")
    notice.trails.add(trashed, live)
    UpdateFactory(trail_system=system, expiration_date=timezone.now() - timedelta(minutes=1))

    rows = load_system_rows(system.pk, timezone.now())

    assert trashed.pk not in {t.id for t in rows.trails}
    assert len(rows.points) == 1
    assert [(u.id, u.trail_ids) for u in rows.updates] == [(notice.pk, (live.pk,))]


def test_all_systems_file_lists_active_systems_only():
    shown = TrailSystemFactory(name="Shown", open_trails=4, hidden_activities=["hiking"])
    TrailSystemFactory(name="Inactive", inactive=True)
    TrailSystemFactory(name="Blocked", blocked=True)
    default_storage.delete(ALL_SYSTEMS_NAME)

    collection = orjson.loads(read_all_systems_file())

    assert [f["properties"]["tsId"] for f in collection["features"]] == [shown.pk]
    assert collection["features"][0]["properties"]["openTrails"] == 4
    assert default_storage.exists(ALL_SYSTEMS_NAME)

    TrailSystemFactory(name="Another")
    build_all_systems_file()

    assert len(orjson.loads(read_all_systems_file())["features"]) == 2


def test_migrate_builds_the_all_systems_file_when_it_is_absent():
    TrailSystemFactory(name="Listed")
    default_storage.delete(ALL_SYSTEMS_NAME)

    call_command("migrate", verbosity=0)

    with default_storage.open(ALL_SYSTEMS_NAME, "rb") as stored:
        assert [f["properties"]["name"] for f in orjson.loads(stored.read())["features"]] == [
            "Listed"
        ]


def test_object_storages_get_geojson_content_type_and_cache_control():
    s3 = PublishedS3Storage(bucket_name="maps")
    map_params = s3._get_write_parameters("published/maps/ts/20260101T000000-ab.geojson")
    all_params = s3._get_write_parameters(ALL_SYSTEMS_NAME)
    gcs = PublishedGoogleCloudStorage(bucket_name="maps").get_object_parameters("x/y.geojson")

    assert map_params["ContentType"] == GEOJSON_CONTENT_TYPE
    assert map_params["CacheControl"] == IMMUTABLE_CACHE_CONTROL
    assert all_params["CacheControl"] == "public, max-age=300"
    assert gcs == {"content_type": GEOJSON_CONTENT_TYPE, "cache_control": IMMUTABLE_CACHE_CONTROL}
