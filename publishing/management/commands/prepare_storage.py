from django.conf import settings
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Prepare the storage of published files: on an S3 or GCS bucket, set the CORS rule that "
        "lets pages on any site read them (GET and HEAD from every origin; it replaces the "
        "bucket's CORS configuration). Local storage needs nothing. Safe to run again."
    )

    def handle(self, *args, **options):
        default_storage.open_to_every_origin()
        backend = settings.STORAGE_BACKEND
        if backend == "local":
            self.stdout.write("local storage: the service answers every origin itself")
        else:
            self.stdout.write(f"{backend} bucket: published files readable from every origin")
