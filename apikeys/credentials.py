"""What authenticated a request: DRF's request.auth, read by permissions and services."""

from dataclasses import dataclass, field

from apikeys.models import ApiKey

API_KEY = "apiKey"
ID_TOKEN = "idToken"


@dataclass(frozen=True)
class Credential:
    """What authenticated the request; DRF's request.auth."""

    auth_type: str  # API_KEY or ID_TOKEN
    scopes: tuple[str, ...]
    key: ApiKey | None = None
    claims: dict = field(default_factory=dict)

    @property
    def can_write(self) -> bool:
        return "write" in self.scopes

    def allows_system(self, system_id: str) -> bool:
        return (
            self.key is None
            or self.key.trail_system_ids is None
            or (system_id in self.key.trail_system_ids)
        )
