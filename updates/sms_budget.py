"""The daily budget of confirmation SMS sent to people signing up on the public map.

Anyone can type a number into the form, and every confirmation SMS is paid for: SMS pumping
fraud signs up thousands of numbers to collect a share of the charges. Confirmation SMS are
counted per trail system per day (its `sms_confirmations_per_day`, 100 by default) and for
the whole site per day (SMS_CONFIRMATIONS_PER_DAY, 1,000), in the cache that the rate limits
use (Redis in production, so every web process shares the counts). Days are UTC days. Past
either budget no confirmation SMS is sent until the next day; e-mail sign-ups go on; the
system's Administrators get one e-mail that day; trails_sms_confirmations_refused_total counts
the refusals. Notifications to confirmed subscribers are never capped.
"""

from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.utils import timezone

from core import queueing, ratelimit
from core.links import absolute
from core.messages import send_email
from trails.models import TrailSystem
from trails.selectors import administrators_emails
from updates.metrics import sms_confirmations_refused

SYSTEM_SCOPE = "sms-confirmations-system"
SITE_SCOPE = "sms-confirmations-site"
TOLD_SCOPE = "sms-budget-told"  # the Administrators' one e-mail of the day
SITE = "site"
SYSTEM = "system"
KEPT_SECONDS = 2 * 24 * 3600  # a day's counters outlive it, then expire


def _today() -> date:
    return timezone.now().astimezone(UTC).date()


def seconds_to_tomorrow() -> int:
    """Until the budgets start again (00:00 UTC)."""
    now = timezone.now().astimezone(UTC)
    tomorrow = datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=UTC)
    return max(1, int((tomorrow - now).total_seconds()))


def sms_sign_up_open(system: TrailSystem) -> bool:
    """Whether the map's form offers sign-up by text today (read only: nothing is counted)."""
    day = _today().isoformat()
    system_spent = ratelimit.counted(SYSTEM_SCOPE, f"{system.pk}:{day}")
    site_spent = ratelimit.counted(SITE_SCOPE, day)
    return (
        system_spent < system.sms_confirmations_per_day
        and site_spent < settings.SMS_CONFIRMATIONS_PER_DAY
    )


def sms_sign_up_state(system: TrailSystem) -> str:
    """What the form offers for text messages today: open, paused (the day's budget is
    spent) or off (no budget, or no country to take numbers from)."""
    if not system.sms_confirmations_per_day:
        return "off"
    return "open" if sms_sign_up_open(system) else "paused"


def take(system: TrailSystem) -> bool:
    """Count one confirmation SMS for `system` today; False (and nothing may be sent) once
    its budget or the site's is spent. The first refusal of the day e-mails the system's
    Administrators after the commit."""
    day = _today().isoformat()
    spent = None
    if not ratelimit.allow(
        SYSTEM_SCOPE,
        f"{system.pk}:{day}",
        limit=system.sms_confirmations_per_day,
        window_seconds=KEPT_SECONDS,
    ):
        spent = SYSTEM
    elif not ratelimit.allow(
        SITE_SCOPE, day, limit=settings.SMS_CONFIRMATIONS_PER_DAY, window_seconds=KEPT_SECONDS
    ):
        spent = SITE
    if spent is None:
        return True
    sms_confirmations_refused.labels(reason=f"{spent}_budget").inc()
    if system.sms_confirmations_per_day and ratelimit.allow(
        TOLD_SCOPE, f"{system.pk}:{day}", limit=1, window_seconds=KEPT_SECONDS
    ):
        queueing.on_commit(lambda: tell_administrators(system, spent))
    return False


def tell_administrators(system: TrailSystem, spent: str) -> None:
    """The one e-mail of the day: sign-up by text is paused, why, and until when."""
    recipients = administrators_emails(system)
    if not recipients:
        return
    budget = (
        system.sms_confirmations_per_day if spent == SYSTEM else settings.SMS_CONFIRMATIONS_PER_DAY
    )
    context = {
        "system_name": system.name,
        "site_wide": spent == SITE,
        "budget": budget,
        "settings_url": absolute("admin:trails_trailsystem_change", system.pk),
    }
    send_email(
        "subscriptions/sms_paused", context, recipients, language=system.language, about=system.pk
    )
