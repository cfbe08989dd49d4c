"""Subscriber notification: one email and one SMS per subscriber for an update created with
notify true, in the trail system's language.

The fan-out records a Delivery row per (update, subscriber, channel) before anything is sent,
then hands chunks of pending rows to parallel Celery tasks. A chunk claims its rows (pending ->
sending) in one short transaction, so a retried or duplicated task never sends a message twice.
Transient provider errors go back to pending and are retried with exponential backoff; a
permanent refusal marks the subscriber's address or number as failed so it is skipped next time.

A chunk sends its rows one by one in id order and records each outcome before the next send,
so a worker killed mid-chunk leaves at most one row of its claim whose message may have gone
out: the lowest-id row still `sending`. After the lease, recover_stale_claims marks that one
failed (never sent twice) and gives the others back to pending (README, "Notification
delivery").
"""

import contextlib
import logging
import re
import smtplib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import mail
from django.db import connection, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import escape

from trails.enums import UpdateType
from updates import sms
from updates.models import Delivery, Subscriber, Update
from updates.types import SURFACE_CONDITION_CATALOG, UPDATE_TYPES

logger = logging.getLogger(__name__)

CHUNK_SIZE = 500
MAX_ATTEMPTS = 5
# Seconds before retry n (1-based): 30 s, 2 min, 8 min, 32 min.
RETRY_BASE_SECONDS = 30
RETRY_FACTOR = 4
INTERRUPTED = "interrupted: the worker stopped while sending; not sent again to avoid a duplicate"

DEPTH_UNITS = {"inches": "in", "centimeters": "cm"}
SNOW_DEPTH_FIELDS = (
    "baseDepth",
    "twentyFourHours",
    "fourtyEightHours",
    "sevenDays",
    "seasonTotal",
    "lastSnowAmount",
    "upperElevationDepth",
)
SNOW_DATE_FIELDS = ("lastSnowDate", "lastSnowMakingDate")


def notify_subscribers_on_commit(update_id: str) -> None:
    """Called by the update service when an update is created with notify true. A broker
    outage is logged, not turned into a failed create: the sweep queues the fan-out later."""
    transaction.on_commit(lambda: send_update_notifications(update_id), robust=True)


def send_update_notifications(update_id: str) -> None:
    """Queue the fan-out; in the embedded default it runs in-process at once."""
    from updates.tasks import fan_out_update

    fan_out_update.delay(update_id)


def updates_to_sweep(now: datetime | None = None) -> list[str]:
    """Notify updates whose fan-out or chunk tasks seem lost: created in the last hour more
    than NOTIFICATION_SWEEP_AFTER ago with no delivery recorded, or with deliveries never
    attempted that long after they were recorded (within the last day)."""
    now = now or timezone.now()
    stale = now - settings.NOTIFICATION_SWEEP_AFTER
    never_fanned_out = Update.objects.filter(
        notify=True,
        created_on__range=(now - timedelta(hours=1), stale),
        deliveries__isnull=True,
    ).values_list("pk", flat=True)
    never_attempted = (
        Delivery.objects.filter(
            state=Delivery.State.PENDING,
            attempts=0,
            created_on__range=(now - timedelta(days=1), stale),
        )
        .values_list("update_id", flat=True)
        .distinct()
    )
    return sorted({*never_fanned_out, *never_attempted})


def recover_stale_claims(now: datetime | None = None) -> list[str]:
    """Release the deliveries of claims older than DELIVERY_LEASE; returns their updates.

    Past the lease the claiming task is dead (its hard time limit is shorter). Per claim, the
    lowest-id row still `sending` may have reached the provider: it becomes failed. The rest
    were never handed over: they go back to pending with their attempt given back.
    """
    cutoff = (now or timezone.now()) - settings.DELIVERY_LEASE
    with transaction.atomic():
        stale = list(
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(state=Delivery.State.SENDING, claimed_on__lt=cutoff)
            .order_by("pk")
            .values_list("pk", "update_id", "channel", "claimed_on")
        )
        in_flight: dict[tuple, int] = {}
        for pk, update_id, channel, claimed_on in stale:
            in_flight.setdefault((update_id, channel, claimed_on), pk)
        interrupted = set(in_flight.values())
        Delivery.objects.filter(pk__in=interrupted).update(
            state=Delivery.State.FAILED, error=INTERRUPTED
        )
        Delivery.objects.filter(
            pk__in=[row[0] for row in stale if row[0] not in interrupted]
        ).update(state=Delivery.State.PENDING, attempts=F("attempts") - 1, claimed_on=None)
    if stale:
        logger.warning(
            "Recovered %d stale deliveries: %d interrupted, %d pending again",
            len(stale),
            len(interrupted),
            len(stale) - len(interrupted),
        )
    return sorted({row[1] for row in stale})


# Who gets what


def _reachable(channel: str) -> Q:
    if channel == Delivery.Channel.EMAIL:
        return ~Q(email="") & Q(email_failed_on__isnull=True)
    return ~Q(phone="") & Q(phone_failed_on__isnull=True)


def record_deliveries(update: Update) -> int:
    """Create the pending Delivery rows of an update, keeping any that exist already.

    One INSERT ... SELECT per channel: the database copies thousands of subscribers in a
    fraction of the time building model instances would take.
    """
    created = 0
    for channel in Delivery.Channel.values:
        subscribers = (
            Subscriber.objects.filter(
                _reachable(channel),
                trail_system_id=update.trail_system_id,
                unsubscribed_on__isnull=True,
            )
            .order_by()
            .values_list("id", flat=True)
        )
        select_sql, select_params = subscribers.query.sql_with_params()
        table = connection.ops.quote_name(Delivery._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} "
                "(update_id, subscriber_id, channel, state, attempts, error, created_on) "
                f"SELECT %s, ids.id, %s, %s, 0, '', %s FROM ({select_sql}) AS ids "
                # WHERE true: SQLite needs it to read ON CONFLICT after a SELECT.
                "WHERE true "
                "ON CONFLICT DO NOTHING",
                (update.pk, channel, Delivery.State.PENDING, timezone.now(), *select_params),
            )
            created += cursor.rowcount
    return created


def pending_chunks(update_id: str, size: int = CHUNK_SIZE) -> list[tuple[str, list[int]]]:
    """(channel, delivery ids) batches of the update's pending deliveries."""
    chunks: list[tuple[str, list[int]]] = []
    for channel in Delivery.Channel.values:
        ids = list(
            Delivery.objects.filter(
                update_id=update_id, channel=channel, state=Delivery.State.PENDING
            )
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        chunks.extend((channel, ids[i : i + size]) for i in range(0, len(ids), size))
    return chunks


def claim(delivery_ids: Iterable[int], channel: str) -> list[Delivery]:
    """Take the still-pending rows among delivery_ids for this worker (pending -> sending).

    Rows whose subscriber has since left or whose address failed are marked skipped. Rows
    another worker holds or has already handled are left alone, so duplicates send nothing.
    """
    with transaction.atomic():
        candidates = list(
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("subscriber")
            .filter(pk__in=list(delivery_ids), state=Delivery.State.PENDING)
            .order_by("pk")
        )
        sendable = Subscriber.objects.filter(_reachable(channel), unsubscribed_on__isnull=True)
        sendable_ids = set(
            sendable.filter(pk__in={d.subscriber_id for d in candidates}).values_list(
                "pk", flat=True
            )
        )
        claimed = [d for d in candidates if d.subscriber_id in sendable_ids]
        skipped = [d.pk for d in candidates if d.subscriber_id not in sendable_ids]
        Delivery.objects.filter(pk__in=[d.pk for d in claimed]).update(
            state=Delivery.State.SENDING, attempts=F("attempts") + 1, claimed_on=timezone.now()
        )
        Delivery.objects.filter(pk__in=skipped).update(state=Delivery.State.SKIPPED)
    for delivery in claimed:
        delivery.attempts += 1
    return claimed


# What they get


def public_map_url(system_id: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/map/{system_id}"


def unsubscribe_url(token: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/unsubscribe/{token}"


def _number(value: float) -> str:
    return f"{value:g}"


def _date(value: datetime) -> str:
    return timezone.localtime(value).date().isoformat()


def message_context(update: Update) -> dict:
    """Everything the templates show, already in the system's language and units."""
    system = update.trail_system
    language = system.language
    template = UPDATE_TYPES[update.type]
    context = {
        "language": language,
        "system_name": system.name,
        "update_type": update.type,
        "update_label": template.label.get(language),
        "map_url": public_map_url(system.pk),
    }
    if update.type != UpdateType.SNOW_REPORT:  # snow reports are about the whole system
        context |= {
            "all_trails": update.all_trails,
            "trail_names": list(update.trails.order_by("order").values_list("name", flat=True)),
        }
    if update.type == UpdateType.NOTICE:
        severity = next(f for f in template.fields if f.property == "severity")
        labels = {value: text.get(language) for value, text in severity.options or ()}
        context |= {
            "description": update.description,
            "severity": update.severity or "info",
            "severity_label": labels.get(update.severity or "info", ""),
            "link_url": update.link_url,
        }
    elif update.type == UpdateType.SURFACE_CONDITIONS:
        context |= {
            "conditions": [
                SURFACE_CONDITION_CATALOG[value].entry(language)["text"]
                for value in update.conditions
                if value in SURFACE_CONDITION_CATALOG
            ],
        }
    elif update.type == UpdateType.SNOW_REPORT:
        unit = DEPTH_UNITS.get(system.depth_measurement, system.depth_measurement)
        labels = {f.property: f.label.get(language) for f in template.fields}
        figures = []
        for prop in (*SNOW_DEPTH_FIELDS, *SNOW_DATE_FIELDS):
            value = getattr(update, _snake(prop))
            if value is None:
                continue
            shown = _date(value) if prop in SNOW_DATE_FIELDS else f"{_number(value)} {unit}"
            if prop == "lastSnowDate" and update.last_snow_time:
                shown = f"{shown} {update.last_snow_time}"
            figures.append({"label": labels[prop], "value": shown})
        context["figures"] = figures
    return context


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# Rendered once per chunk with this in place of the link, which is all that differs between
# subscribers; it has no character that HTML escaping would change.
LINK_PLACEHOLDER = "UNSUBSCRIBE-LINK-7f3c9a"


@dataclass(frozen=True)
class Messages:
    """An update's message parts (subject, text and HTML email bodies, SMS text)."""

    subject: str
    text: str
    html: str
    sms: str

    @classmethod
    def render(cls, context: dict) -> "Messages":
        context = {**context, "unsubscribe_url": LINK_PLACEHOLDER}

        def part(name: str) -> str:
            return render_to_string(f"notifications/{context['language']}/{name}", context)

        return cls(
            subject=" ".join(part("subject.txt").split()),
            text=re.sub(r"\n\s*\n\s*\n+", "\n\n", part("body.txt")).strip(),
            html=part("body.html").strip(),
            sms=re.sub(r"\n\s*\n+", "\n", part("sms.txt")).strip(),
        )

    def email_for(self, subscriber: Subscriber) -> mail.EmailMultiAlternatives:
        link = unsubscribe_url(subscriber.unsubscribe_token)
        message = mail.EmailMultiAlternatives(
            subject=self.subject,
            body=self.text.replace(LINK_PLACEHOLDER, link),
            to=[subscriber.email],
            headers={
                "List-Unsubscribe": f"<{link}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
        message.attach_alternative(self.html.replace(LINK_PLACEHOLDER, escape(link)), "text/html")
        return message

    def sms_for(self, subscriber: Subscriber) -> sms.SmsMessage:
        link = unsubscribe_url(subscriber.unsubscribe_token)
        return sms.SmsMessage(to=subscriber.phone, body=self.sms.replace(LINK_PLACEHOLDER, link))


# Sending


@dataclass
class Outcome:
    """What happened to one claimed delivery."""

    delivery: Delivery
    error: str = ""
    permanent: bool = False  # the address or number will never work
    retry: bool = False  # worth another attempt later

    @property
    def sent(self) -> bool:
        return not self.error


def _attempt(delivery: Delivery, send: Callable[[], None]) -> Outcome:
    try:
        send()
    except smtplib.SMTPRecipientsRefused as error:
        return Outcome(delivery, f"refused: {error.recipients}", permanent=True)
    except sms.SmsError as error:
        return Outcome(delivery, str(error), permanent=error.permanent, retry=not error.permanent)
    except (smtplib.SMTPException, OSError) as error:
        return Outcome(delivery, f"{type(error).__name__}: {error}", retry=True)
    except Exception as error:  # a bug must not leave the rest of the chunk unsent
        logger.exception("Delivery %s failed", delivery.pk)
        return Outcome(delivery, f"{type(error).__name__}: {error}")
    return Outcome(delivery)


def send_all(backend, build: Callable, deliveries: list[Delivery]) -> Iterator[Outcome]:
    """Send one message per delivery, in order, over one connection of an email or SMS
    backend, yielding each outcome before the next message is sent.

    A connection that cannot be opened, or breaks, is reopened for the next message; the
    messages it fails are recorded for retry like any other transient failure.
    """
    _reopen(backend)
    try:
        for delivery in deliveries:

            def send(d=delivery):
                backend.send_messages([build(d.subscriber)])

            outcome = _attempt(delivery, send)
            if outcome.retry:
                _reopen(backend)
            yield outcome
    finally:
        backend.close()


def _reopen(backend) -> None:
    backend.close()
    with contextlib.suppress(smtplib.SMTPException, OSError):
        backend.open()


def record_outcomes(outcomes: list[Outcome], channel: str) -> list[int]:
    """Store each outcome, one UPDATE per (state, error) group; returns the ids to retry."""
    now = timezone.now()
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.sent:
            state = Delivery.State.SENT
        elif outcome.retry and outcome.delivery.attempts < MAX_ATTEMPTS:
            state = Delivery.State.PENDING
        else:
            state = Delivery.State.FAILED
        groups[state, outcome.error[:2000]].append(outcome.delivery.pk)
    for (state, error), ids in groups.items():
        sent_on = now if state == Delivery.State.SENT else None
        Delivery.objects.filter(pk__in=ids).update(state=state, error=error, sent_on=sent_on)
    failed_field = "email_failed_on" if channel == Delivery.Channel.EMAIL else "phone_failed_on"
    Subscriber.objects.filter(
        pk__in=[o.delivery.subscriber_id for o in outcomes if o.permanent]
    ).update(**{failed_field: now})
    return [
        pk for (state, _), ids in groups.items() if state == Delivery.State.PENDING for pk in ids
    ]


def retry_delay(attempts: int) -> int:
    """Seconds to wait before the next attempt after `attempts` tries."""
    return RETRY_BASE_SECONDS * RETRY_FACTOR ** (attempts - 1)


def send_chunk(update_id: str, channel: str, delivery_ids: list[int]) -> tuple[list[int], int]:
    """Send the claimable deliveries among delivery_ids.

    Returns the ids to retry and the delay before retrying them. Everything that can fail
    before sending (the update deleted meanwhile, rendering, the backend's settings) happens
    before the rows are claimed, so it leaves them pending rather than claimed and unsent.
    """
    update = Update.objects.select_related("trail_system").filter(pk=update_id).first()
    if update is None:
        return [], 0
    messages = Messages.render(message_context(update))
    if channel == Delivery.Channel.EMAIL:
        backend, build = mail.get_connection(), messages.email_for
    else:
        backend, build = sms.get_connection(), messages.sms_for
    deliveries = claim(delivery_ids, channel)
    if not deliveries:
        return [], 0
    retry_ids = [
        pk
        for outcome in send_all(backend, build, deliveries)
        for pk in record_outcomes([outcome], channel)
    ]
    if not retry_ids:
        return [], 0
    retrying = set(retry_ids)
    return retry_ids, retry_delay(max(d.attempts for d in deliveries if d.pk in retrying))
