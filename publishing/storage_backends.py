"""The storage backends of published files: each file with its Content-Type, Cache-Control
and Content-Encoding.

Object storages keep one object per name and cannot choose an encoding per reader, so the
file is stored gzipped (django-storages' own `gzip` option) with `Content-Encoding: gzip`:
every browser and HTTP library reads it (GCS even decompresses it for a reader that does not
accept gzip). Local disk keeps the file as written with its compressed copies beside it,
`name.gz` and `name.br` (core.compression), and publishing.media sends the one the reader accepts.

A map file is written as compiled first (content.compress_later, publishing.storage) and
compressed after its compile has published it (`store_compressed`): on local disk the copies
appear beside it, each whole (written under a temporary name, then renamed); on a bucket the
gzipped object replaces the plain one under the same name, and a reader gets one or the
other whole, each with its own Content-Encoding.
"""

import copy
import os
import secrets
from pathlib import Path

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage
from storages.backends.gcloud import GoogleCloudStorage
from storages.backends.s3 import S3Storage

from core.compression import map_file_copies
from publishing.storage import (
    ENCODED_SUFFIXES,
    GEOJSON_CONTENT_TYPE,
    cache_control,
    is_published_file,
)

# Spec section 4: the published file needs no credentials and is not subject to the origin
# allowlist; pages on any site fetch it.
CORS_METHODS = ("GET", "HEAD")
CORS_EXPOSED_HEADERS = (
    "Content-Type",
    "Content-Encoding",
    "Content-Length",
    "ETag",
    "Last-Modified",
)
CORS_MAX_AGE_SECONDS = 86400


class PublishedFilesMixin:
    content_type_key: str
    cache_control_key: str
    gzip = True
    gzip_content_types = (GEOJSON_CONTENT_TYPE,)

    def get_object_parameters(self, name: str) -> dict:
        parameters = super().get_object_parameters(name)
        if is_published_file(name):
            parameters.setdefault(self.content_type_key, GEOJSON_CONTENT_TYPE)
            parameters.setdefault(self.cache_control_key, cache_control(name))
        return parameters

    def _save(self, name: str, content) -> str:
        if getattr(content, "compress_later", False):
            as_written = copy.copy(self)  # the same connection, without this one upload's gzip
            as_written.gzip = False
            return super(PublishedFilesMixin, as_written)._save(name, content)
        return super()._save(name, content)

    def store_compressed(self, name: str, body: bytes) -> bool:
        """The object replaced by its gzipped self, unless it was deleted meanwhile."""
        if not self.exists(name):
            return False
        content = ContentFile(body)
        content.content_type = GEOJSON_CONTENT_TYPE
        super()._save(name, content)
        return True


class PublishedS3Storage(PublishedFilesMixin, S3Storage):
    content_type_key = "ContentType"
    cache_control_key = "CacheControl"

    def open_to_every_origin(self) -> None:
        """The bucket's CORS configuration becomes the published files' rule (it replaces
        any other rule of the bucket)."""
        rule = {
            "AllowedOrigins": ["*"],
            "AllowedMethods": list(CORS_METHODS),
            "AllowedHeaders": ["*"],
            "ExposeHeaders": list(CORS_EXPOSED_HEADERS),
            "MaxAgeSeconds": CORS_MAX_AGE_SECONDS,
        }
        self.connection.meta.client.put_bucket_cors(
            Bucket=self.bucket_name, CORSConfiguration={"CORSRules": [rule]}
        )


class PublishedGoogleCloudStorage(PublishedFilesMixin, GoogleCloudStorage):
    content_type_key = "content_type"
    cache_control_key = "cache_control"

    def open_to_every_origin(self) -> None:
        """The bucket's CORS configuration becomes the published files' rule (it replaces
        any other rule of the bucket)."""
        self.bucket.cors = [
            {
                "origin": ["*"],
                "method": list(CORS_METHODS),
                "responseHeader": list(CORS_EXPOSED_HEADERS),
                "maxAgeSeconds": CORS_MAX_AGE_SECONDS,
            }
        ]
        self.bucket.patch()


class PublishedFileSystemStorage(FileSystemStorage):
    """Local disk: a published file's compressed copies are written after it and deleted
    with it; a reader before they exist is sent the file as written."""

    def _save(self, name: str, content) -> str:
        stored = super()._save(name, content)
        if is_published_file(stored) and not getattr(content, "compress_later", False):
            content.seek(0)
            self.store_compressed(stored, content.read())
        return stored

    def store_compressed(self, name: str, body: bytes) -> bool:
        """The copies beside the file, each renamed into place whole; none if the file was
        deleted meanwhile."""
        written = []
        for encoding, compressed in map_file_copies(body).items():
            target = Path(self.path(name + ENCODED_SUFFIXES[encoding]))
            partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
            partial.write_bytes(compressed)
            os.replace(partial, target)
            written.append(target)
        if not self.exists(name):
            for target in written:
                target.unlink(missing_ok=True)
            return False
        return True

    def delete(self, name: str) -> None:
        super().delete(name)
        if is_published_file(name):
            for suffix in ENCODED_SUFFIXES.values():
                super().delete(name + suffix)

    def open_to_every_origin(self) -> None:
        """Nothing to set: publishing.media answers every origin."""
