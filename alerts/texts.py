"""What a rider is told: the changes an alert holds (items), and the message they make, the
push payload the service worker shows (title, body, url, tag, event) and the text of an
e-mail or SMS. Text from data (a trail's name, a notice) stays text: the service worker
shows it as a notification's text, never as markup."""

import hashlib
from typing import TypedDict

from django.conf import settings
from django.utils.translation import gettext, ngettext

from alerts.vapid import b64url

OPENS, CLOSES, CAUTION, GROOMED, NOTICES, SNOW = (
    "opens",
    "closes",
    "caution",
    "groomed",
    "notices",
    "snow",
)
KINDS = (OPENS, CLOSES, CAUTION, GROOMED, NOTICES, SNOW)
# The event type of the payload, per kind of change.
EVENT_TYPES = {
    OPENS: "status",
    CLOSES: "status",
    CAUTION: "status",
    GROOMED: "groomed",
    NOTICES: "notice",
    SNOW: "snow",
}
NOTE_MAX = 300


class Item(TypedDict, total=False):
    """One change an alert tells of (stored as JSON in Alert.items)."""

    kind: str
    trailId: str | None
    trailName: str
    activity: str | None
    status: str | None
    note: str
    danger: bool


def map_url(system_id: str, trail_id: str | None) -> str:
    url = f"{settings.PUBLIC_BASE_URL}/map/{system_id}"
    return f"{url}?trail={trail_id}" if trail_id else url


def tag(system_id: str, items: list[Item]) -> str:
    """Notifications with one tag replace each other: one per trail, one per system for a
    message about several."""
    trail_ids = {item.get("trailId") for item in items}
    if len(trail_ids) == 1 and None not in trail_ids:
        return f"trail-{trail_ids.pop()}"
    return f"system-{system_id}"


def topic(message_tag: str) -> str:
    """The Topic header (at most 32 base64url characters): a newer message of the same tag
    replaces one the push service still holds for an offline phone."""
    return b64url(hashlib.blake2b(message_tag.encode(), digest_size=18).digest())


def _verb(kind: str, count: int) -> str:
    words = {
        OPENS: ngettext("trail open", "trails open", count),
        CLOSES: ngettext("trail closed", "trails closed", count),
        CAUTION: ngettext("trail with caution", "trails with caution", count),
        GROOMED: ngettext("trail groomed", "trails groomed", count),
    }
    return words.get(kind, ngettext("change", "changes", count))


def _status_word(status: str | None) -> str:
    words = {"Open": gettext("Open"), "Closed": gettext("Closed"), "Caution": gettext("Caution")}
    return words.get(status or "", status or "")


def _name(item: Item) -> str:
    name = item.get("trailName") or ""
    return f"{name} ({item['activity']})" if item.get("activity") else name


def headline(item: Item, system_name: str) -> str:
    kind = item["kind"]
    if kind in (OPENS, CLOSES, CAUTION):
        return f"{_name(item)}: {_status_word(item.get('status'))}"
    if kind == GROOMED:
        return gettext("%(trail)s: groomed") % {"trail": _name(item)}
    if kind == SNOW:
        return gettext("%(system)s: %(note)s") % {"system": system_name, "note": item["note"]}
    return f"{system_name}: {item.get('note', '')}"[:NOTE_MAX]


def title_and_body(items: list[Item], system_name: str, follows: bool) -> tuple[str, str]:
    if len(items) == 1:
        item = items[0]
        title = headline(item, system_name)
        note = item.get("note", "") if item["kind"] not in (NOTICES, SNOW) else ""
        return title, note or system_name
    kinds = {item["kind"] for item in items}
    names = ", ".join(_name(item) for item in items)
    if len(kinds) == 1 and kinds < {OPENS, CLOSES, CAUTION, GROOMED}:
        count = len(items)
        words = {"count": count, "what": _verb(kinds.pop(), count)}
        title = gettext("%(count)d more %(what)s") if follows else gettext("%(count)d %(what)s")
        return title % words, names
    title = ngettext(
        "%(count)d change at %(system)s", "%(count)d changes at %(system)s", len(items)
    ) % {"count": len(items), "system": system_name}
    return title, "; ".join(headline(item, system_name) for item in items)


def payload(
    *, system_id: str, system_name: str, items: list[Item], follows: bool, manage_url: str
) -> dict:
    """The decrypted push payload the service worker reads."""
    title, body = title_and_body(items, system_name, follows)
    last = items[-1]
    trail_id = last.get("trailId") if len({i.get("trailId") for i in items}) == 1 else None
    return {
        "title": title,
        "body": body,
        "url": map_url(system_id, trail_id),
        "tag": tag(system_id, items),
        "manageUrl": manage_url,
        "event": {
            "type": EVENT_TYPES[last["kind"]],
            "systemId": system_id,
            "trailId": last.get("trailId"),
            "activity": last.get("activity"),
            "status": last.get("status"),
        },
        "count": len(items),
    }
