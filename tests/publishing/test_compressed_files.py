"""Published files stored and served compressed, and readable from every origin: on local
disk, served by the service (the default), and in an S3 bucket (moto's S3 server, started
here, speaking HTTP to boto3 as AWS does)."""

import gzip
import urllib.request

import brotli
import orjson
import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from moto.server import ThreadedMotoServer

from publishing.models import CompileRequest
from publishing.publisher import compile_pending, compress_published_file, read_all_systems_file
from publishing.storage import (
    ALL_SYSTEMS_NAME,
    GEOJSON_CONTENT_TYPE,
    IMMUTABLE_CACHE_CONTROL,
    absolute_public_url,
    list_map_files,
    public_url,
)
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db


def read(path: str) -> bytes:
    with default_storage.open(path, "rb") as stored:
        return stored.read()


def fetch(url: str, **headers: str):
    """As curl does: the bytes as sent, no decoding."""
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as answer:
        return answer.headers, answer.read()


def test_curl_accepting_gzip_gets_the_file_gzipped(published_path, service_url):
    url = f"{service_url}{public_url(published_path)}"

    headers, body = fetch(url, **{"Accept-Encoding": "gzip"})

    assert headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"] == GEOJSON_CONTENT_TYPE
    assert "Accept-Encoding" in headers["Vary"]
    assert headers["Cache-Control"] == IMMUTABLE_CACHE_CONTROL
    assert int(headers["Content-Length"]) == len(body) < len(read(published_path)) / 3
    assert gzip.decompress(body) == read(published_path)


def test_a_browser_accepting_brotli_gets_it_and_a_plain_reader_the_file_as_written(
    published_path, client
):
    url = public_url(published_path)

    brotlied = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    plain = client.get(url)

    assert brotlied["Content-Encoding"] == "br"
    assert brotli.decompress(b"".join(brotlied.streaming_content)) == read(published_path)
    assert not plain.has_header("Content-Encoding")
    assert b"".join(plain.streaming_content) == read(published_path)
    assert orjson.loads(read(published_path))["type"] == "FeatureCollection"


def test_any_origin_may_read_the_file_and_its_preflight_passes(published_path, client):
    url = public_url(published_path)
    origin = {"Origin": "https://club.example"}

    answer = client.get(url, headers=origin)
    preflight = client.options(
        url,
        headers={
            **origin,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        },
    )

    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == "*"
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert preflight["Access-Control-Allow-Headers"] == "if-none-match"


def test_compressed_copies_go_with_their_file_and_are_not_listed_as_map_files(
    published_path, settings
):
    system_id = published_path.split("/")[2]
    copies = [published_path + ".gz", published_path + ".br"]
    assert all(default_storage.exists(copy) for copy in copies)
    assert list_map_files(system_id) == [published_path]

    default_storage.delete(published_path)

    assert not any(default_storage.exists(copy) for copy in copies)


@pytest.fixture
def copies_by_the_worker(settings) -> None:
    """Every file's copies are left to the copies task, however small."""
    settings.MAP_FILE_COPIES_WORKER_MIN_BYTES = 0


def compiled_as_written() -> str:
    """A system's file as its compile names it, before the task makes the copies."""
    system = TrailSystemFactory()
    for _ in range(5):
        TrailActivityFactory(trail=TrailFactory(trail_system=system), value="skiing")
    CompileRequest.objects.create(trail_system=system, reason="test")
    return compile_pending(system.pk).path


def test_a_compile_names_the_file_as_written_and_its_copies_follow(copies_by_the_worker, client):
    path = compiled_as_written()
    url = public_url(path)
    accepting = {"Accept-Encoding": "gzip, deflate, br"}

    before = client.get(url, headers=accepting)
    compress_published_file(path)
    after = client.get(url, headers=accepting)

    assert not before.has_header("Content-Encoding")
    assert b"".join(before.streaming_content) == read(path)
    assert after["Content-Encoding"] == "br"
    assert brotli.decompress(b"".join(after.streaming_content)) == read(path)


def test_copies_of_a_file_deleted_before_they_are_made_are_not_kept(copies_by_the_worker):
    path = compiled_as_written()
    default_storage.delete(path)

    compress_published_file(path)

    assert not default_storage.exists(path + ".gz")
    assert not default_storage.exists(path + ".br")


def test_the_copies_can_be_made_inside_the_compile_for_the_benchmark(settings, client):
    settings.MAP_FILE_COPIES_IN_COMPILE = True
    path = compiled_as_written()

    answer = client.get(public_url(path), headers={"Accept-Encoding": "gzip"})

    assert answer["Content-Encoding"] == "gzip"
    assert gzip.decompress(b"".join(answer.streaming_content)) == read(path)


BUCKET = "published-maps"


@pytest.fixture(scope="module")
def s3_endpoint():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_storage(s3_endpoint, settings):
    settings.STORAGE_BACKEND = "s3"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "publishing.storage_backends.PublishedS3Storage"},
    }
    settings.AWS_S3_ENDPOINT_URL = s3_endpoint
    settings.AWS_S3_ADDRESSING_STYLE = "path"
    settings.AWS_S3_REGION_NAME = "us-east-1"
    settings.AWS_S3_ACCESS_KEY_ID = "test-key"
    settings.AWS_S3_SECRET_ACCESS_KEY = "test-secret"
    settings.AWS_STORAGE_BUCKET_NAME = BUCKET
    client = default_storage.connection.meta.client
    client.create_bucket(Bucket=BUCKET)
    yield client
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for stored in page.get("Contents", []):
            client.delete_object(Bucket=BUCKET, Key=stored["Key"])
    client.delete_bucket(Bucket=BUCKET)


def test_on_s3_the_object_is_stored_gzipped_with_its_headers(s3_storage, published_path):
    head = s3_storage.head_object(Bucket=BUCKET, Key=published_path)
    stored = s3_storage.get_object(Bucket=BUCKET, Key=published_path)["Body"].read()

    assert head["ContentEncoding"] == "gzip"
    assert head["ContentType"] == GEOJSON_CONTENT_TYPE
    assert head["CacheControl"] == IMMUTABLE_CACHE_CONTROL
    collection = orjson.loads(gzip.decompress(stored))
    assert collection["type"] == "FeatureCollection"
    # The service reads its own files back as written (the legacy all-systems route).
    assert orjson.loads(read_all_systems_file()) == orjson.loads(read(ALL_SYSTEMS_NAME))
    assert orjson.loads(read(published_path)) == collection


def test_prepare_storage_opens_the_bucket_to_every_origin(s3_storage, published_path):
    call_command("prepare_storage")

    (rule,) = s3_storage.get_bucket_cors(Bucket=BUCKET)["CORSRules"]
    headers, body = fetch(absolute_public_url(published_path), Origin="https://club.example")

    assert rule["AllowedOrigins"] == ["*"]
    assert set(rule["AllowedMethods"]) == {"GET", "HEAD"}
    # S3 answers "*"; moto names the origin, which a browser allows as well.
    assert headers["Access-Control-Allow-Origin"] in ("*", "https://club.example")
    assert headers["Content-Encoding"] == "gzip"
    assert orjson.loads(gzip.decompress(body))["type"] == "FeatureCollection"


def test_on_s3_the_compile_stores_the_file_as_written_then_its_gzip_replaces_it(
    copies_by_the_worker, s3_storage
):
    path = compiled_as_written()
    written = s3_storage.get_object(Bucket=BUCKET, Key=path)

    compress_published_file(path)
    compressed = s3_storage.get_object(Bucket=BUCKET, Key=path)

    assert "ContentEncoding" not in written
    assert written["ContentType"] == GEOJSON_CONTENT_TYPE
    assert written["CacheControl"] == IMMUTABLE_CACHE_CONTROL
    body = written["Body"].read()
    assert orjson.loads(body)["type"] == "FeatureCollection"
    assert compressed["ContentEncoding"] == "gzip"
    assert compressed["CacheControl"] == IMMUTABLE_CACHE_CONTROL
    assert gzip.decompress(compressed["Body"].read()) == body
