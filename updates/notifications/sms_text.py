"""The length of a notification SMS: one a provider accepts, at a price a resort can pay.

Twilio refuses a body over 1,600 characters, and every 153 GSM-7 characters (67 when the text
needs Unicode, UCS-2) is one more segment billed per subscriber. So a notification SMS is at
most two segments: 306 GSM-7 septets (an extension character such as € or [ takes two), or 134
UCS-2 code units (an emoji takes two) when a character outside the GSM alphabet is in it,
counted as the carriers count them. The update's text is cut at a word boundary, with "..."
and the map link after it, where the rider reads the rest. When the system name, the map link
and the unsubscribe line leave less than MIN_TEXT characters for the text, the unsubscribe
line keeps only "reply STOP" (the provider's keyword), and then the name is cut to NAME_MIN
characters; the map link is always whole.
"""

from collections.abc import Callable

import gsm0338  # noqa: F401  (registers the "gsm03.38" codec)
from django.utils.text import Truncator

GSM_SINGLE, GSM_PART = 160, 153  # septets: one segment; each of several (the rest is a header)
UCS2_SINGLE, UCS2_PART = 70, 67  # UTF-16 code units, likewise
TARGET_SEGMENTS = 2
MIN_TEXT = 100  # characters of the update's text worth keeping the unsubscribe link and name for
ELLIPSIS = "..."  # three dots: GSM-7 has no "…", which would make the message UCS-2
NAME_MAX = 100  # characters of a system's name (up to 2,000) in an SMS
NAME_MIN = 30  # ... and when nothing else leaves the text room, in a notification SMS
# How a notification SMS makes room for its text, in order: (unsubscribe link, name's length).
WAYS = ((True, NAME_MAX), (False, NAME_MAX), (False, NAME_MIN))


def sms_name(name: str, limit: int = NAME_MAX) -> str:
    """A system's name as an SMS shows it."""
    return Truncator(name).chars(limit, truncate=ELLIPSIS)


def is_gsm(text: str) -> bool:
    try:
        text.encode("gsm03.38")
    except UnicodeEncodeError:
        return False
    return True


def units(text: str, gsm: bool) -> int:
    """What `text` costs in its encoding: septets (an extension character such as € takes
    two) or UTF-16 code units (an emoji takes two)."""
    return len(text.encode("gsm03.38" if gsm else "utf-16-le")) // (1 if gsm else 2)


def segments(text: str) -> int:
    """How many segments the message is sent as."""
    gsm = is_gsm(text)
    size = units(text, gsm)
    single, part = (GSM_SINGLE, GSM_PART) if gsm else (UCS2_SINGLE, UCS2_PART)
    return 1 if size <= single else -(-size // part)


def _cut(text: str, room: int, gsm: bool) -> str:
    """The longest start of `text` of at most `room` units ending at a word boundary, with
    the ellipsis; a single word longer than the room is cut where the room ends."""
    room -= len(ELLIPSIS)
    used = end = 0
    for end, character in enumerate(text):  # noqa: B007 (end is the cut after the loop)
        used += units(character, gsm)
        if used > room:
            break
    else:
        return text
    kept = text[:end]
    if not text[end].isspace() and any(c.isspace() for c in kept):
        kept = kept[: max(i for i, c in enumerate(kept) if c.isspace())]
    return kept.rstrip(" \n\t,;:.-") + ELLIPSIS


def fit(build: Callable[..., str], text: str, *, link_extra: int = 0) -> str:
    """The message `build(text, link=..., name_max=...)` in at most two segments, with
    `text` cut, then the unsubscribe link left out, then the name shortened, as the rules
    above say. `link_extra` is how many characters longer the subscriber's own unsubscribe
    link may be than what `build` puts in its place."""
    whole = build(text, link=True, name_max=NAME_MAX)
    gsm = is_gsm(whole)
    room = TARGET_SEGMENTS * (GSM_PART if gsm else UCS2_PART)
    if units(whole, gsm) + link_extra <= room:
        return whole

    def text_room(link: bool, name_max: int) -> int:
        fixed = units(build("", link=link, name_max=name_max), gsm)
        return room - fixed - (link_extra if link else 0)

    link, name_max = next(
        (way for way in WAYS[:-1] if text_room(*way) >= MIN_TEXT + len(ELLIPSIS)), WAYS[-1]
    )
    return build(_cut(text, text_room(link, name_max), gsm), link=link, name_max=name_max)
