"""Where report photos are kept: the `report_photos` storage (settings.STORAGES), a private
place of the same backend as the published files (a folder outside MEDIA_ROOT on local disk,
private objects under `report-photos/` in the bucket). Nothing serves it to the public: the
API and the web app read a photo for those who may see its report."""

import secrets

from django.core.files.base import ContentFile
from django.core.files.storage import storages

from reports.photos import STORED_CONTENT_TYPE

ALIAS = "report_photos"


def photo_storage():
    return storages[ALIAS]


def save_photo(system_id: str, report_id: str, body: bytes) -> str:
    """Store the cleaned photo under a name never used before; returns the stored name."""
    content = ContentFile(body)
    content.content_type = STORED_CONTENT_TYPE
    name = f"{system_id}/{report_id}-{secrets.token_hex(8)}.jpg"
    return photo_storage().save(name, content)


def read_photo(name: str) -> bytes | None:
    """The stored photo; None when it is gone (deleted with its report meanwhile)."""
    try:
        with photo_storage().open(name, "rb") as stored:
            return stored.read()
    except FileNotFoundError:
        return None


def delete_photo(name: str) -> None:
    photo_storage().delete(name)
