"""Who makes a change and along which path: stamped on rows (updatedBy) and kept in the status
history, so a manager can tell a groomer's phone from the web app from an import."""

from dataclasses import dataclass

from django.db import models
from django.utils.translation import gettext_lazy as _


class Via(models.TextChoices):
    """The path a change came by (the history's `via`)."""

    API_KEY = "api-key", _("API key")
    ID_TOKEN = "id-token", _("ID token")
    WEB_APP = "web-app", _("Web app")
    IMPORT = "import", _("Import")
    BULK = "bulk", _("Bulk change")
    GROOMING = "grooming", _("Grooming")
    SCHEDULE = "schedule", _("Schedule")
    REPORT = "report", _("From a rider's report")


@dataclass(frozen=True)
class Actor:
    """The account uid behind a change, the path, and the API key when one was used."""

    uid: str
    via: str
    key_id: str = ""

    def by_path(self, via: str) -> "Actor":
        """The same account and key along another path (a bulk status change, say)."""
        return Actor(self.uid, via, self.key_id)
