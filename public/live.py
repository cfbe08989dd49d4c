"""Live map updates: one hub per process tells every open stream of a trail system that a
compile published a new file, and what changed in it.

Two sources say "this system may have changed": the process's PostgreSQL listener
(core/listening.py) for compiles in other processes (the Celery worker), and publishing's
`map_published` signal for compiles in this process (the embedded default). The hub's thread
then reads the system's row, once per notification and process, never per stream; when the row
names a new file it reads that file once, compares it with the last one and hands the same
encoded event to every stream of the system. Streams are asyncio queues (the ASGI process) or
thread queues (runserver); either way a stream only waits.

Events carry only what the published file has (its address, its version, statuses and names
of the visible trails and points that changed). Each event's id is the version of the file it
names, so a stream that reconnects with Last-Event-ID gets the events it missed, or the current
file when they are no longer kept.

Where a system shows its groomers live, the machines grooming now travel on the same streams
as `groomers` events (no id: they leave Last-Event-ID alone, and clients that know only the
file's events ignore them). A stored position says so on PostgreSQL's GROOMERS_MOVED channel
(grooming.sessions' `groomers_moved` signal in this process); the hub reads every machine of
the system once and sends one event, at most every GROOMERS_EVENT_SECONDS per system however
many trackers report, and only when something moved. A new stream gets the last one at once.

Closures travel as `closures` events (no id either): a closure's write changes no published
file but the system's closures file (closures.services.publish_closures), which says so on
PostgreSQL's CLOSURES_CHANGED channel (the `closures_published` signal in this process). The
hub reads the file of the system once and sends its version, the file's ETag, to every stream;
the map reads the file again when it is not the one it has. A stream starts with none: the
page has just read the file, and reads it again when its stream comes back after a break.
"""

import asyncio
import contextlib
import hashlib
import logging
import queue
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from django.conf import settings
from django.db import connection

from closures.documents import closures_version
from core import listening, memory
from core.dates import iso_ms
from core.preflight import ANY_ORIGIN
from grooming.selectors import groomers_shown
from public import metrics
from public.selectors import published_closures, read_published
from publishing.storage import absolute_public_url
from trails.models import TrailSystem

logger = logging.getLogger(__name__)

# Events kept per system for streams that reconnect with Last-Event-ID.
RECENT_EVENTS = 32
# A system nobody has watched for this long is forgotten (its summary and recent events).
FEED_KEEP_SECONDS = 600.0
# Trails and points listed in one event's changes; more set otherChanges.
MAX_LISTED = 100
# Streams closed after which the hub hands the freed memory back to the system (core.memory).
GIVE_BACK_AFTER_CLOSED = 200
# How often the hub's thread looks for idle feeds to forget and memory to give back.
HOUSEKEEPING_SECONDS = 5.0
# A system's machines are sent at most this often, however many trackers report (each at one
# position a second, as Traccar Client may).
GROOMERS_EVENT_SECONDS = 2.0
# Queued to the hub's thread: a `groomers` event may be due (no system to read).
WAKE = ""
# How long a browser waits before it reconnects a dropped stream (the SSE retry field).
RETRY_MILLISECONDS = 2000
RETRY_FRAME = f"retry: {RETRY_MILLISECONDS}\n\n".encode()
HEARTBEAT_FRAME = b": keep-alive\n\n"
# Every stream's headers: never cached or compressed on the way (a compressor would hold the
# events back); public data, so a page of any origin may read it.
STREAM_HEADERS = (
    ("Content-Type", "text/event-stream"),
    ("Cache-Control", "no-cache, no-transform"),
    ("X-Accel-Buffering", "no"),
    ANY_ORIGIN,
)
END = None  # queued to a stream: it ends (the system left the public map, or the client went)


@dataclass(frozen=True, slots=True)
class Item:
    """What a stream is told of one trail or point of the file."""

    name: str
    status: str
    visible: bool
    digest: bytes


Summary = dict[tuple[str, str], Item]


def version_of(path: str) -> str:
    """The version a file's name carries (date and random suffix), the id of its events."""
    return path.rsplit("/", 1)[-1].removesuffix(".geojson")


def summarize(collection: dict) -> Summary:
    """Each trail (its features together) and point of a published file, by kind and id."""
    items: Summary = {}
    for feature in collection.get("features", []):
        properties = feature.get("properties") or {}
        if "trailId" in properties:
            key = ("trail", str(properties["trailId"]))
        elif "pointId" in properties:
            key = ("point", str(properties["pointId"]))
        else:
            continue
        digest = hashlib.blake2b(orjson.dumps(feature), digest_size=8)
        before = items.get(key)
        if before is not None:
            digest.update(before.digest)
        items[key] = Item(
            name=str(properties.get("name") or ""),
            status=str(properties.get("status") or ""),
            visible=not properties.get("hidden"),
            digest=digest.digest(),
        )
    return items


def changes_between(before: Summary, after: Summary) -> dict:
    """Visible trails and points whose status changed, appeared (previous null) or went
    (status null); otherChanges when anything else changed or the lists were cut."""
    listed: dict[str, list[dict]] = {"trail": [], "point": []}
    other = False
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        was = old.status if old and old.visible else None
        now = new.status if new and new.visible else None
        if was == now:
            other = True
            continue
        kind, item_id = key
        listed[kind].append(
            {f"{kind}Id": item_id, "name": (new or old).name, "status": now, "previous": was}
        )
    for entries in listed.values():
        entries.sort(key=lambda entry: entry["name"].casefold())
        if len(entries) > MAX_LISTED:
            del entries[MAX_LISTED:]
            other = True
    return {"trails": listed["trail"], "points": listed["point"], "otherChanges": other}


def frame(name: str, data: dict, event_id: str | None = None) -> bytes:
    """One Server-Sent Events message (the JSON has no line breaks)."""
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {name}\n".encode() + b"data: " + orjson.dumps(data) + b"\n\n"


@dataclass(frozen=True, slots=True)
class Publication:
    """The file a system's row names (path empty: never compiled) and when it was compiled."""

    path: str
    compiled_on: datetime | None

    @classmethod
    def of(cls, system: TrailSystem) -> "Publication":
        return cls(system.geo_json_path or "", system.compiled_on)

    @property
    def version(self) -> str:
        return version_of(self.path) if self.path else ""

    def event(self, system_id: str, name: str, changes: dict | None) -> bytes:
        data = {
            "systemId": system_id,
            "version": self.version,
            "fileUrl": absolute_public_url(self.path),
            "compiledOn": iso_ms(self.compiled_on),
            "changes": changes,
        }
        return frame(name, data, self.version)


class Stream:
    """One open stream: frames queued by the hub, read by the response's iterator."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop
        self.queue: asyncio.Queue | queue.SimpleQueue = (
            asyncio.Queue() if loop is not None else queue.SimpleQueue()
        )


def _put_all(streams: list[Stream], item: bytes | None) -> None:
    for stream in streams:
        stream.queue.put_nowait(item)


@dataclass
class Feed:
    """One system as the hub knows it: its last publication, that file's summary, the events
    of its last compiles, its open streams, the listening session in which the hub last read
    its row; whether it shows groomers live (as of that read), the last `groomers` event sent
    and when the hub last read its machines; the last `closures` event sent."""

    publication: Publication
    summary: Summary | None = None
    recent: deque[tuple[str, bytes]] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))
    streams: set[Stream] = field(default_factory=set)
    idle_since: float = 0.0
    checked_in: int = 0
    groomers_live: bool = False
    groomers: bytes = b""
    groomers_read: float = 0.0
    closures: bytes = b""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a stream is not opened: the answer's status and words."""

    status: int
    message: str

    def headers(self) -> list[tuple[str, str]]:
        """The answer's headers: come back after a poll's pace (the page polls meanwhile);
        any page may read it."""
        return [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Retry-After", str(round(settings.MAP_POLL_SECONDS))),
            ("Cache-Control", "no-store"),
            ANY_ORIGIN,
        ]


PER_CLIENT = Refusal(429, "Too many live streams from this address.")
PROCESS_FULL = Refusal(503, "This server holds all the live streams it can.")
# A WSGI worker where compiles run elsewhere: a stream would hold the worker for hours.
NOT_HERE = Refusal(
    503, "Live map streams are served by the ASGI process (docs/operators/streams.md)."
)


class Admissions:
    """The streams this process holds, in all and per client (core.clients.counted_client):
    past STREAM_MAX_PER_CLIENT or STREAM_MAX_CONNECTIONS a stream is refused at once, so one
    address cannot take the process's open files from every other rider."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_client: Counter[str] = Counter()
        self.total = 0
        self.closed_since_give_back = 0

    def admit(self, client: str) -> Refusal | None:
        """Counts the stream in (release it when it ends), or says why not."""
        with self.lock:
            if self.by_client[client] >= settings.STREAM_MAX_PER_CLIENT:
                metrics.streams_refused.labels("per_client").inc()
                return PER_CLIENT
            if self.total >= settings.STREAM_MAX_CONNECTIONS:
                metrics.streams_refused.labels("process_full").inc()
                return PROCESS_FULL
            self.by_client[client] += 1
            self.total += 1
        return None

    def release(self, client: str) -> None:
        with self.lock:
            if self.by_client[client] <= 1:
                self.by_client.pop(client, None)
            else:
                self.by_client[client] -= 1
            self.total = max(self.total - 1, 0)
            self.closed_since_give_back += 1

    def memory_to_give_back(self) -> bool:
        """Whether enough streams closed since the last time to hand their memory back."""
        with self.lock:
            if self.closed_since_give_back < GIVE_BACK_AFTER_CLOSED:
                return False
            self.closed_since_give_back = 0
            return True

    def clear(self) -> None:
        """Forget every stream (stop(): their ends come later, and count nothing)."""
        with self.lock:
            self.by_client.clear()
            self.total = 0


admissions = Admissions()


class Hub:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.feeds: dict[str, Feed] = {}
        self.pending: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.sessions = 0
        self.session = 0  # the listener's current session; 0: not listening
        # Systems whose `groomers` event may be due, and when it may be sent (monotonic).
        self.groomers_due: dict[str, float] = {}
        self.groomers_listener = SystemListener(self, self.groomers_moved)
        # Systems whose closures file may have changed: True when it did (a notification),
        # False when the hub only looks again (listening again after a break).
        self.closures_due: dict[str, bool] = {}
        self.closures_listener = SystemListener(
            self, self.closures_changed, started=self.closures_to_check
        )

    # Streams

    def vouched(self, system_id: str) -> Publication | None:
        """The system's publication when the hub answers for it without a query: it listens,
        and read the row in this listening session (so the system is public, and every later
        commit to it would have been heard). None: read the row."""
        with self.lock:
            feed = self.feeds.get(system_id)
            if feed is not None and self.session and feed.checked_in == self.session:
                return feed.publication
        return None

    def open(
        self, system_id: str, current: Publication, stream: Stream, last_event_id: str = ""
    ) -> bytes:
        """Add a stream of a public system; returns what it is sent first: the events after
        `last_event_id` when they are kept, else the current file (nothing when the stream
        already has it)."""
        with self.lock:
            feed = self.feeds.get(system_id)
            if feed is None:
                feed = self.feeds[system_id] = Feed(current)
                if current.path:  # a stream resuming from it has missed nothing
                    feed.recent.append((current.version, b""))
            feed.streams.add(stream)
            behind = feed.publication.path != current.path
            recent = list(feed.recent)
            groomers = feed.groomers if feed.groomers_live else b""
        if feed.summary is None or behind:
            self.pending.put(system_id)  # the hub reads the summary, or catches up
        return self._file_events(system_id, current, recent, last_event_id) + groomers

    @staticmethod
    def _file_events(
        system_id: str, current: Publication, recent: list[tuple[str, bytes]], last_event_id: str
    ) -> bytes:
        if not current.path or last_event_id == current.version:
            return b""
        ids = [event_id for event_id, _ in recent]
        if last_event_id in ids and ids[-1] == current.version:
            return b"".join(body for _, body in recent[ids.index(last_event_id) + 1 :])
        return current.event(system_id, "current", None)

    def close(self, system_id: str, stream: Stream) -> None:
        with self.lock:
            feed = self.feeds.get(system_id)
            if feed is not None:
                feed.streams.discard(stream)
                if not feed.streams:
                    feed.idle_since = time.monotonic()

    def stream_count(self) -> int:
        with self.lock:
            return sum(len(feed.streams) for feed in self.feeds.values())

    # What may have changed (any thread)

    def changed(self, system_id: str) -> None:
        if system_id in self.feeds:
            self.pending.put(system_id)

    def published(self, sender: object = None, system_id: str = "", **kwargs: object) -> None:
        """publishing's map_published signal: a compile of this process committed."""
        self.changed(system_id)

    def session_started(self) -> None:
        """Listening (again): anything may have changed while nobody listened."""
        with self.lock:
            self.sessions += 1
            self.session = self.sessions
            watched = list(self.feeds)
        for system_id in watched:
            self.pending.put(system_id)

    def notified(self, payload: str) -> None:
        self.changed(payload)

    def session_ended(self) -> None:
        with self.lock:
            self.session = 0

    def groomers_moved(self, sender: object = None, system_id: str = "", **kwargs: object) -> None:
        """A machine of the system moved, started or stopped (grooming.sessions' signal, or
        the GROOMERS_MOVED channel): its `groomers` event is due, at most every
        GROOMERS_EVENT_SECONDS. Nothing for a system without streams or that does not show
        its groomers."""
        with self.lock:
            feed = self.feeds.get(system_id)
            if feed is None or not feed.groomers_live or system_id in self.groomers_due:
                return
            self._groomers_due(system_id, feed)
        self.pending.put(WAKE)

    def closures_changed(
        self, sender: object = None, system_id: str = "", **kwargs: object
    ) -> None:
        """closures' `closures_published` signal, or the CLOSURES_CHANGED channel: the
        system's closures file changed, and its `closures` event is due. Nothing for a system
        without streams."""
        with self.lock:
            if system_id not in self.feeds:
                return
            self.closures_due[system_id] = True
        self.pending.put(WAKE)

    def closures_to_check(self, system_id: str) -> None:
        """Listening again: the file may have changed meanwhile. Its event is sent when its
        version is not the last one sent; the first version read is only kept (the streams
        started from the file as it was)."""
        with self.lock:
            if system_id in self.feeds:
                self.closures_due.setdefault(system_id, False)
        self.pending.put(WAKE)

    def _groomers_due(self, system_id: str, feed: Feed) -> None:
        """(Under the lock.)"""
        self.groomers_due[system_id] = max(
            time.monotonic(), feed.groomers_read + GROOMERS_EVENT_SECONDS
        )

    # The hub's thread

    def start(self) -> None:
        """Run the hub's thread and listen, if this process does not yet (from a sync view:
        the listener reads the database settings)."""
        with self.lock:
            if self.thread is not None:
                return
            self.thread = threading.Thread(target=self._run, name="live-map-hub", daemon=True)
            self.thread.start()
        if connection.vendor == "postgresql":
            listening.listener().subscribe(self)
            listening.listener(listening.GROOMERS_MOVED).subscribe(self.groomers_listener)
            listening.listener(listening.CLOSURES_CHANGED).subscribe(self.closures_listener)

    def stop(self) -> None:
        """End the hub's thread and every open stream, and forget every feed (tests, before
        their database goes)."""
        thread = self.thread
        if thread is None:
            return
        self.pending.put(None)
        thread.join()
        with self.lock:
            self.thread = None
            streams = [stream for feed in self.feeds.values() for stream in feed.streams]
            self.feeds.clear()
        self._send(streams, END)

    def _run(self) -> None:
        housekept = time.monotonic()
        while True:
            if time.monotonic() - housekept > HOUSEKEEPING_SECONDS:
                self._forget_idle()
                if admissions.memory_to_give_back():
                    memory.give_back()
                # The connection lives a few seconds at most: notifications may come minutes
                # apart, and an idle connection would outlive a database restart.
                connection.close()
                housekept = time.monotonic()
            try:
                system_id = self.pending.get(timeout=self._wait())
            except queue.Empty:
                system_id = WAKE
            batch = {system_id}
            while not self.pending.empty():
                batch.add(self.pending.get_nowait())
            if None in batch:
                break
            for each in batch - {WAKE}:
                try:
                    self._check(each)
                except Exception:
                    logger.exception("live map: checking %s failed", each)
                    connection.close()
            try:
                self._send_groomers()
            except Exception:
                logger.exception("live map: reading the groomers failed")
                connection.close()
            try:
                self._send_closures()
            except Exception:
                logger.exception("live map: reading the closures failed")
                connection.close()
        connection.close()

    def _wait(self) -> float:
        """How long the hub's thread may wait for work: until the next `groomers` event is
        due, or the next housekeeping."""
        with self.lock:
            due = min(self.groomers_due.values(), default=None)
        if due is None:
            return HOUSEKEEPING_SECONDS
        return min(max(due - time.monotonic(), 0.0), HOUSEKEEPING_SECONDS)

    def _send_groomers(self) -> None:
        """Each due system's machines, read in one query, to its streams when they moved
        (or, when the system stopped showing them, an empty list once)."""
        now = time.monotonic()
        with self.lock:
            due = [system_id for system_id, at in self.groomers_due.items() if at <= now]
            for system_id in due:
                del self.groomers_due[system_id]
        if not due:
            return
        shown = groomers_shown(due)
        for system_id in due:
            groomers = [groomer.document() for groomer in shown.get(system_id, [])]
            body = frame("groomers", {"systemId": system_id, "groomers": groomers})
            with self.lock:
                feed = self.feeds.get(system_id)
                if feed is None:
                    continue
                feed.groomers_read = now
                if body == feed.groomers or not (feed.groomers_live or feed.groomers):
                    continue
                feed.groomers = body if feed.groomers_live else b""
                streams = list(feed.streams)
            self._send(streams, body)

    def _send_closures(self) -> None:
        """Each due system's closures version, their files read in one query, to its streams
        when it changed."""
        with self.lock:
            due, self.closures_due = self.closures_due, {}
        if not due:
            return
        for system_id, body in published_closures(list(due)).items():
            data = {"systemId": system_id, "version": closures_version(body)}
            event = frame("closures", data)
            with self.lock:
                feed = self.feeds.get(system_id)
                if feed is None or event == feed.closures:
                    continue
                first, feed.closures = not feed.closures, event
                streams = list(feed.streams)
            if due[system_id] or not first:
                self._send(streams, event)

    def _forget_idle(self) -> None:
        deadline = time.monotonic() - FEED_KEEP_SECONDS
        with self.lock:
            for system_id in [
                system_id
                for system_id, feed in self.feeds.items()
                if not feed.streams and feed.idle_since < deadline
            ]:
                del self.feeds[system_id]

    def _check(self, system_id: str) -> None:
        feed = self.feeds.get(system_id)
        if feed is None:
            return
        session = self.session  # before the read: a notification after it is not missed
        row = (
            TrailSystem.objects.filter(pk=system_id, inactive=False)
            .values_list("geo_json_path", "compiled_on", "groomers_live")
            .first()
        )
        if row is None:
            self._end(system_id)
            return
        with self.lock:
            if feed.groomers_live != row[2] or (row[2] and not feed.groomers):
                # Turned on (or never read): read the machines; off: they leave the map.
                feed.groomers_live = row[2]
                self._groomers_due(system_id, feed)
        current = Publication(row[0] or "", row[1])
        known = feed.publication
        if current.path and (known.path != current.path or feed.summary is None):
            summary = self._summary_of(current.path)
            if summary is None:
                return  # replaced meanwhile: the next compile's notification comes
            if known.path == current.path:
                feed.summary = summary  # the first read of a new feed's file
            else:
                before = feed.summary if feed.summary is not None else self._summary_of(known.path)
                changes = changes_between(before, summary) if before is not None else None
                body = current.event(system_id, "published", changes)
                with self.lock:
                    feed.publication, feed.summary = current, summary
                    feed.recent.append((current.version, body))
                    streams = list(feed.streams)
                self._send(streams, body)
        feed.checked_in = session

    @staticmethod
    def _summary_of(path: str) -> Summary | None:
        """A published file's summary; None without a path, or when the file is gone. Also
        read for the file a new feed's streams started from, when a compile came before the
        hub's first read of it: their changes are still counted from what they show."""
        collection = read_published(path) if path else None
        return summarize(collection) if collection is not None else None

    def _end(self, system_id: str) -> None:
        """The system left the public map (inactive or deleted): its streams are told and end."""
        with self.lock:
            feed = self.feeds.pop(system_id, None)
        if feed is not None:
            streams = list(feed.streams)
            self._send(streams, frame("unavailable", {"systemId": system_id}))
            self._send(streams, END)

    @staticmethod
    def _send(streams: list[Stream], item: bytes | None) -> None:
        by_loop: dict[asyncio.AbstractEventLoop | None, list[Stream]] = {}
        for stream in streams:
            by_loop.setdefault(stream.loop, []).append(stream)
        for loop, group in by_loop.items():
            if loop is None:
                _put_all(group, item)
                continue
            # A closed loop's streams are gone with it.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_put_all, group, item)


class SystemListener:
    """The hub's subscriber on a channel whose payload is a system's id (GROOMERS_MOVED,
    CLOSURES_CHANGED; core.listening): `changed` is called with it, and `started` (`changed`
    unless given) with each followed system when listening starts again."""

    def __init__(
        self,
        hub: Hub,
        changed: Callable[..., None],
        started: Callable[[str], None] | None = None,
    ) -> None:
        self.hub = hub
        self.changed = changed
        self.started = started or (lambda system_id: changed(system_id=system_id))

    def session_started(self) -> None:
        """Listening (again): anything may have changed meanwhile."""
        with self.hub.lock:
            feeds = list(self.hub.feeds)
        for system_id in feeds:
            self.started(system_id)

    def notified(self, payload: str) -> None:
        self.changed(system_id=payload)

    def session_ended(self) -> None:
        """Nothing to forget: the next session's start reads every followed system again."""


hub = Hub()


def frames(
    system_id: str, current: Publication, last_event_id: str, client: str
) -> Iterator[bytes]:
    """The stream's body under runserver (a thread per connection), admitted for `client`: a
    heartbeat that cannot be written ends it."""
    stream = Stream()
    first = hub.open(system_id, current, stream, last_event_id)
    try:
        yield RETRY_FRAME + first
        while True:
            try:
                item = stream.queue.get(timeout=settings.STREAM_HEARTBEAT_SECONDS)
            except queue.Empty:
                yield HEARTBEAT_FRAME
                continue
            if item is END:
                return
            yield item
    finally:
        hub.close(system_id, stream)
        admissions.release(client)


def stop() -> None:
    """Stop the hub and the process's listener (tests, before their database is dropped)."""
    hub.stop()
    admissions.clear()
    listening.listener().stop()
    listening.listener(listening.GROOMERS_MOVED).stop()
    listening.listener(listening.CLOSURES_CHANGED).stop()
