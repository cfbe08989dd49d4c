"""Who makes a change and along which path: stamped on rows (updatedBy) and kept in the status
history, so a manager can tell a groomer's phone from the web app from an import."""

from dataclasses import dataclass

from django.db import models


class Via(models.TextChoices):
    """The path a change came by (the history's `via`)."""

    API_KEY = "api-key"
    ID_TOKEN = "id-token"
    WEB_APP = "web-app"
    IMPORT = "import"
    BULK = "bulk"
    GROOMING = "grooming"


@dataclass(frozen=True)
class Actor:
    """The account uid behind a change, the path, and the API key when one was used."""

    uid: str
    via: str
    key_id: str = ""

    def by_path(self, via: str) -> "Actor":
        """The same account and key along another path (a bulk status change, say)."""
        return Actor(self.uid, via, self.key_id)
