"""The JSON Schemas (2020-12) of the files we publish in shapes of our own (the published map
file, closures.geojson): served at /feeds/schema/ for whoever builds a reader, and checked by
`manage.py check_feeds` and the tests against what the compile writes."""

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

import orjson
from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).parent / "schemas"


@dataclass(frozen=True, slots=True)
class FeedSchema:
    name: str  # its file in public/schemas and its URL, without ".json"
    describes: str  # the feed it describes, as a reader finds it


SCHEMAS = {
    schema.name: schema
    for schema in (
        FeedSchema("published-map", "the published map file (geoJsonUrl)"),
        FeedSchema("closures", "/feeds/<system id>/closures.geojson"),
        FeedSchema("discovery", "/feeds/<system id>/index.json"),
    )
}


class Problem(NamedTuple):
    path: str  # where the wrong value is: its JSON path ("$": the whole file), or in XML its
    # line and element path
    message: str


@cache
def schema(name: str) -> dict:
    return orjson.loads((SCHEMA_DIR / f"{name}.json").read_bytes())


@cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def problems(name: str, document: object) -> list[Problem]:
    """What is wrong with a document against the named schema, in document order; none: it
    is valid."""
    errors = sorted(_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [Problem(error.json_path, error.message) for error in errors]
