"""What one attempt to send an alert did, whatever its channel (alerts.senders)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """Sent (`ok`); `gone`: the subscription, address or number takes no more messages, and
    its follower goes; `retryable`: the channel's compartment failed (no answer, 429, 5xx, a
    mail server or SMS provider down) and backs off as a whole; else refused, this alert
    only. `status` is the push service's HTTP status, when one answered."""

    ok: bool = False
    gone: bool = False
    retryable: bool = False
    status: int | None = None
    error: str = ""
    retry_after: float | None = None
    duration_ms: int = 0
