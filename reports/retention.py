"""Reports are kept REPORT_RETENTION_DAYS (90): then the report, its photo and the reporter's
address are deleted."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from reports.models import Report
from reports.storage import delete_photo

BATCH = 500


def delete_old_reports() -> int:
    """Delete every report received more than the retention ago; returns how many."""
    cutoff = timezone.now() - timedelta(days=settings.REPORT_RETENTION_DAYS)
    deleted = 0
    while True:
        with transaction.atomic():
            old = list(
                Report.objects.select_for_update(skip_locked=True)
                .filter(created_on__lt=cutoff)
                .order_by("created_on")
                .values_list("pk", "photo")[:BATCH]
            )
            if not old:
                return deleted
            # A group goes with its first report; a later report of it keeps its own date.
            Report.objects.filter(duplicate_of_id__in=[pk for pk, _ in old]).update(
                duplicate_of=None
            )
            Report.objects.filter(pk__in=[pk for pk, _ in old]).delete()
        for _, photo in old:
            if photo:
                delete_photo(photo)
        deleted += len(old)
