"""The compile outbox: a request row is written in the same transaction as the change."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import IdField
from trails.models import TrailSystem


class CompileRequestQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(done_on__isnull=True)


class CompileRequest(models.Model):
    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="compile_requests",
        verbose_name=_("trail system"),
    )
    reason = models.CharField(max_length=200, blank=True, default="", verbose_name=_("reason"))
    requested_on = models.DateTimeField(default=timezone.now, verbose_name=_("requested on"))
    # When the compile that served this request began; with done_on, how long it ran.
    started_on = models.DateTimeField(null=True, blank=True, verbose_name=_("started on"))
    done_on = models.DateTimeField(null=True, blank=True, verbose_name=_("done on"))
    # The file the compile that served this request published.
    published_path = models.CharField(
        max_length=500, blank=True, default="", verbose_name=_("published path")
    )

    objects = CompileRequestQuerySet.as_manager()

    class Meta:
        verbose_name = _("compile request")
        verbose_name_plural = _("compile requests")
        ordering = ["requested_on"]
        indexes = [
            models.Index(
                fields=["trail_system", "requested_on"],
                condition=models.Q(done_on__isnull=True),
                name="pending_compile_requests",
            ),
            # A compile's removal of replaced files reads the system's recent compiles by time.
            models.Index(
                fields=["trail_system", "done_on"],
                condition=models.Q(done_on__isnull=False),
                name="done_compile_requests",
            ),
        ]

    def __str__(self) -> str:
        state = "done" if self.done_on else "pending"
        return f"compile of {self.trail_system_id} ({state})"
