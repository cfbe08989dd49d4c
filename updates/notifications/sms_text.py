"""The length of a notification SMS: one a provider accepts, at a price a resort can pay.

Twilio refuses a body over 1,600 characters, and every 153 GSM-7 characters (67 when the text
needs Unicode, UCS-2) is one more segment billed per subscriber. So an update's text is cut
at a word boundary, with "..." and the map link after it, where the rider reads the rest:

- the whole message fits in two segments: 306 GSM-7 characters (two of 153), or 134 UCS-2
  code units (two of 67) when a character outside the GSM alphabet is in it;
- unless the system name, the links and the unsubscribe line leave less room than MIN_TEXT
  characters for the update's text: then the message takes the segments it needs for them
  and MIN_TEXT characters of text (less the end of a word the cut falls in);
- and never more than 1,600 characters, whatever the name.
"""

from collections.abc import Callable

import gsm0338  # noqa: F401  (registers the "gsm03.38" codec)
from django.utils.text import Truncator

MAX_CHARACTERS = 1600  # Twilio's limit on a message body
GSM_SINGLE, GSM_PART = 160, 153  # septets: one segment; each of several (the rest is a header)
UCS2_SINGLE, UCS2_PART = 70, 67  # UTF-16 code units, likewise
TARGET_SEGMENTS = 2
MIN_TEXT = 100  # characters of room for the update's text, whatever the segments
ELLIPSIS = "..."  # three dots: GSM-7 has no "…", which would make the message UCS-2
NAME_MAX = 100  # characters of a system's name (up to 2,000) in an SMS


def sms_name(name: str) -> str:
    """A system's name as an SMS shows it."""
    return Truncator(name).chars(NAME_MAX, truncate=ELLIPSIS)


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


def fit(build: Callable[[str], str], text: str, *, link_extra: int = 0) -> str:
    """The message `build(text)`, with `text` cut so that the message keeps to the rules
    above. `link_extra` is how many characters longer the subscriber's own unsubscribe link
    may be than what `build` puts in its place."""
    message = build(text)
    gsm = is_gsm(message)
    per_segment = GSM_PART if gsm else UCS2_PART
    fixed = units(build(""), gsm) + link_extra
    room = max(TARGET_SEGMENTS * per_segment, fixed + MIN_TEXT + len(ELLIPSIS))
    if units(message, gsm) + link_extra <= room and len(message) + link_extra <= MAX_CHARACTERS:
        return message
    text_room = min(room - fixed, MAX_CHARACTERS - len(build("")) - link_extra)
    if text_room > len(ELLIPSIS):
        return build(_cut(text, text_room, gsm))
    # Even without the text the message is too long (a name of 2,000 characters).
    return build("")[: MAX_CHARACTERS - link_extra - len(ELLIPSIS)] + ELLIPSIS
