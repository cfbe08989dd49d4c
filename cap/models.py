"""The CAP 1.2 messages issued for a trail system: each one kept as it was issued, so its URL
always answers the same document and later messages can reference it."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import IdField
from trails.models import TrailSystem


class MsgType(models.TextChoices):
    """CAP's msgType, the three this service issues."""

    ALERT = "Alert", _("Alert")
    UPDATE = "Update", _("Update")
    CANCEL = "Cancel", _("Cancel")


class CapMessage(models.Model):
    """One message of a warning's thread (`closure-<id>` or `notice-<id>`): an Alert, then
    an Update each time what it says changed, then a Cancel when it ended. `info` is the
    CAP info block as issued (cap.sources), times already written as CAP writes them."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="cap_messages",
        verbose_name=_("trail system"),
    )
    thread = models.CharField(max_length=80, verbose_name=_("warning"))
    sequence = models.PositiveIntegerField(verbose_name=_("sequence"))
    msg_type = models.CharField(
        max_length=10, choices=MsgType.choices, verbose_name=_("message type")
    )
    sent = models.DateTimeField(verbose_name=_("sent"))
    info = models.JSONField(verbose_name=_("info"))

    class Meta:
        verbose_name = _("CAP message")
        verbose_name_plural = _("CAP messages")
        ordering = ["sent", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["trail_system", "thread", "sequence"], name="cap_message_in_thread"
            )
        ]

    def __str__(self) -> str:
        return self.identifier

    @property
    def identifier(self) -> str:
        """CAP's identifier: unique among the system's messages, and never reused."""
        return f"{self.thread}-{self.sequence}"
