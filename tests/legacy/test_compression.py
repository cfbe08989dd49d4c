"""Legacy bodies go compressed to pollers that accept it, brotli before gzip; a cached body
is compressed once, not per request; the validators keep working across encodings."""

import gzip
import json

import brotli
import pytest

from legacy import cache, versions
from tests.factories import TrailFactory

pytestmark = pytest.mark.django_db


def test_a_poller_accepting_gzip_gets_the_same_document_gzipped(client, system):
    path = f"/legacy/trails/{system.id}"

    plain = client.get(path)
    gzipped = client.get(path, headers={"Accept-Encoding": "gzip"})
    brotlied = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})

    assert not plain.has_header("Content-Encoding")
    assert gzipped["Content-Encoding"] == "gzip"
    assert brotlied["Content-Encoding"] == "br"
    assert gzip.decompress(gzipped.content) == plain.content
    assert brotli.decompress(brotlied.content) == plain.content
    for answer in (plain, gzipped, brotlied):
        assert "Accept-Encoding" in answer["Vary"]
    assert int(gzipped["Content-Length"]) == len(gzipped.content) < len(plain.content) / 3


def test_the_cached_body_is_compressed_once_for_every_poller(client, system):
    path = f"/legacy/trails/{system.id}"
    first = client.get(path, headers={"Accept-Encoding": "gzip"})
    held = cache.current("trails", system.id, versions.trails_version, lambda: None)

    made = held._copies["gzip"]  # made by the first request, held with the cached body

    second = client.get(path, headers={"Accept-Encoding": "gzip"})

    assert made == first.content == second.content
    assert held._copies["gzip"] is made


@pytest.mark.parametrize("held_encoding", ["gzip", None])
def test_a_poller_holding_either_encoding_gets_304(client, system, held_encoding):
    path = f"/legacy/ts/{system.id}"
    asked = {"Accept-Encoding": held_encoding} if held_encoding else {}
    first = client.get(path, headers=asked)

    again = client.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": first["ETag"]})

    assert again.status_code == 304
    assert "Accept-Encoding" in again["Vary"]


def test_trail_coordinates_are_written_with_at_most_six_decimals(client, system):
    geometry = {
        "type": "LineString",
        "coordinates": [[-113.123456789, 45.987654321], [-113.1, 45.9]],
    }
    TrailFactory(
        trail_system=system, name="Precise", geometry=geometry, lat=45.98765432, lng=-113.12345678
    )

    (entry,) = [
        t for t in client.get(f"/legacy/trails/{system.id}").json() if t["name"] == "Precise"
    ]

    assert json.loads(entry["geoJson"])["features"][0]["geometry"] == {
        "type": "LineString",
        "coordinates": [[-113.123456, 45.987654], [-113.1, 45.9]],
    }
    assert entry["geolocation"] == {"_latitude": 45.987654, "_longitude": -113.123457}
