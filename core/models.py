"""Model building blocks shared by every app: ids, audit fields and the trash."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.ids import ID_MAX_LENGTH, new_id


class IdField(models.CharField):
    """Opaque 20-character id by default; longer imported ids are kept as they are."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", ID_MAX_LENGTH)
        kwargs.setdefault("default", new_id)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)


class Audited(models.Model):
    """createdOn/createdBy/updatedOn/updatedBy as the spec shows them (by = the caller's uid)."""

    created_on = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=_("created on")
    )
    created_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("created by")
    )
    updated_on = models.DateTimeField(default=timezone.now, verbose_name=_("updated on"))
    updated_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("updated by")
    )

    class Meta:
        abstract = True


class LiveManager(models.Manager):
    """The default manager: trashed rows are invisible unless asked for through `trash`."""

    def get_queryset(self):
        return super().get_queryset().filter(trashed_on__isnull=True)


class TrashManager(models.Manager):
    def get_queryset(self):
        return super().get_queryset().filter(trashed_on__isnull=False)


class Trashable(models.Model):
    """Soft delete: DELETE moves a row to the trash, restorable in the web app."""

    trashed_on = models.DateTimeField(
        null=True, blank=True, db_index=True, verbose_name=_("trashed on")
    )
    trashed_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("trashed by")
    )

    objects = LiveManager()
    trash = TrashManager()
    all_objects = models.Manager()  # noqa: DJ012 - a manager, not a field

    class Meta:
        abstract = True

    @property
    def is_trashed(self) -> bool:
        return self.trashed_on is not None


class ChannelKey(models.Model):
    """One key of a fair-queued outbound channel (core.fairqueue): what is served one at a
    time (a webhook endpoint), its tenant (a trail system), its claim (the token of the one
    task queued or running for it, or none) and its recent use. A channel's concrete model
    adds the key as its primary key."""

    tenant = models.CharField(max_length=ID_MAX_LENGTH, db_index=True)
    claim = models.CharField(max_length=32, blank=True, default="")
    # When it was last claimed (kept after the claim ends: a tenant's keys go in turn).
    claimed_on = models.DateTimeField(null=True, blank=True)
    # When the claim's task began (None while it waits in the queue).
    started_on = models.DateTimeField(null=True, blank=True)
    # The recent mean duration of one unit of work (an attempt), and whether that is slow.
    unit_seconds = models.FloatField(default=0.0)
    slow = models.BooleanField(default=False)
    # Worker time used, as of used_on (it halves every USE_HALF_LIFE).
    used_seconds = models.FloatField(default=0.0)
    used_on = models.DateTimeField(null=True, blank=True)
    # A slow key's own backoff: not claimed again before this.
    rest_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
