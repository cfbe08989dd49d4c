"""django-storages backends that give each published file its Content-Type and
Cache-Control, through the per-object hook both backends document."""

from storages.backends.gcloud import GoogleCloudStorage
from storages.backends.s3 import S3Storage

from publishing.storage import GEOJSON_CONTENT_TYPE, cache_control


class PublishedFilesMixin:
    content_type_key: str
    cache_control_key: str

    def get_object_parameters(self, name: str) -> dict:
        parameters = super().get_object_parameters(name)
        if name.endswith(".geojson"):
            parameters.setdefault(self.content_type_key, GEOJSON_CONTENT_TYPE)
            parameters.setdefault(self.cache_control_key, cache_control(name))
        return parameters


class PublishedS3Storage(PublishedFilesMixin, S3Storage):
    content_type_key = "ContentType"
    cache_control_key = "CacheControl"


class PublishedGoogleCloudStorage(PublishedFilesMixin, GoogleCloudStorage):
    content_type_key = "content_type"
    cache_control_key = "cache_control"
