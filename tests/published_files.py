"""Every map file the suite publishes is checked against its JSON Schema (public/schemas)
where it is published: the tests' storage (tests.settings) notes each one that is not valid,
and a fixture of every test (tests/conftest.py) fails the test that published it. A compile
that swallows a storage error (publishing.publisher keeps the previous file) cannot hide it."""

import orjson

from public.feed_schemas import problems
from publishing.storage import MAP_FILES_DIR, is_published_file
from publishing.storage_backends import PublishedFileSystemStorage

SHOWN_PER_FILE = 5
# What the files published since the current test began got wrong, one line a file.
invalid_files: list[str] = []


class SchemaCheckedStorage(PublishedFileSystemStorage):
    """Local disk, as the suite's service publishes, checking each map file it stores."""

    def _save(self, name: str, content) -> str:
        stored = super()._save(name, content)
        if stored.startswith(f"{MAP_FILES_DIR}/") and is_published_file(stored):
            content.seek(0)
            found = problems("published-map", orjson.loads(content.read()))
            if found:
                wrong = "; ".join(f"{p.path}: {p.message}" for p in found[:SHOWN_PER_FILE])
                invalid_files.append(f"{stored}: {wrong}")
        return stored
