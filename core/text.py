"""Single-line text: the names people give systems, trails, points, categories and keys.

A name goes into e-mail subjects and plain-text e-mails, SMS, CSV exports and log lines, where
a line break or a tab would forge lines of its own (`Bob\\r\\nBcc: evil@x.test`). Such names
refuse every control character: C0 (CR, LF, tab, NUL...), DEL, C1, and the Unicode line and
paragraph separators. Multi-line fields (descriptions, notices) keep their line breaks.

They refuse too the Unicode characters that hide text or change its direction (bidirectional
embeddings, overrides and isolates, the direction marks, zero-width characters, the word
joiner and the invisible operators, the soft hyphen, the tag characters, the Hangul fillers
and the byte order mark): `Open\\u202e` makes a name read differently from what it is (the
"Trojan Source" trick), and an invisible character makes two names that look the same differ.

Multi-line text (an update's text, a rider's report, a triage note) keeps its line breaks and
direction marks, but loses the bidirectional embeddings, overrides and isolates, which would
turn the text after them around in every message and page that shows it.
"""

import re
from collections.abc import Iterable, Mapping

from core.errors import Invalid

# C0 controls, DEL, C1 controls, LINE SEPARATOR and PARAGRAPH SEPARATOR; SOFT HYPHEN; ARABIC
# LETTER MARK; the Hangul fillers (choseong, jungseong, compatibility, halfwidth); zero-width
# space, non-joiner, joiner, left-to-right and right-to-left marks; bidirectional embeddings
# and overrides (U+202A-U+202E) and isolates (U+2066-U+2069); WORD JOINER and the invisible
# operators (U+2061-U+2064); BYTE ORDER MARK; the tag characters (U+E0000-U+E007F), written
# as themselves: a pattern's escapes stop at U+FFFF.
CONTROL_CHARACTERS = (
    "\\x00-\\x1f\\x7f-\\x9f\\xad\\u061c\\u115f\\u1160\\u200b-\\u200f\\u2028-\\u202e"
    "\\u2060-\\u2064\\u2066-\\u2069\\u3164\\ufeff\\uffa0\U000e0000-\U000e007f"
)
# The explicit bidirectional formatting characters: embeddings, overrides, isolates and their
# terminators (Unicode's UAX #9).
BIDI_CONTROLS = re.compile("[\\u202a-\\u202e\\u2066-\\u2069]")
NOT_SINGLE_LINE = re.compile(f"[{CONTROL_CHARACTERS}]")
# The same rule for the OpenAPI document (JSON Schema's `pattern`, ECMA-262 syntax).
SINGLE_LINE_PATTERN = f"^[^{CONTROL_CHARACTERS}]*$".replace("\\x", "\\u00")

# What XML 1.0 cannot hold and stored text may (a notice's, a note's): the feeds written as XML
# leave it out rather than fail.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

SINGLE_LINE_RULE = (
    "one line of text, without control characters (line breaks, tabs) or invisible "
    "formatting characters (zero-width, direction marks)"
)
# What str.isspace() holds: str.strip() (DRF's trimming) removes it and re's \s matches it.
# Spelt out for the OpenAPI document, where \s is JavaScript's set (without U+001C to U+001F,
# with U+FEFF).
WHITESPACE = (
    "\\u0009-\\u000d\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029"
    "\\u202f\\u205f\\u3000"
)


def is_single_line(value: str) -> bool:
    return not NOT_SINGLE_LINE.search(value)


def xml_text(value: object) -> object:
    """Strings (in lists, tuples and dicts too) without what XML cannot hold."""
    if isinstance(value, str):
        return NOT_XML.sub("", value)
    if isinstance(value, list | tuple):
        return [xml_text(item) for item in value]
    if isinstance(value, dict):
        return {name: xml_text(item) for name, item in value.items()}
    return value


def without_bidi_controls(text: str) -> str:
    """Multi-line text without the characters that would reorder what follows them."""
    return BIDI_CONTROLS.sub("", text)


def check_single_line(fields: Mapping, *names: str) -> None:
    """The services' check of the named single-line fields of a write (a name, or a list of
    names such as categories), whichever interface writes: 400 invalid_field in the API, an
    error on the field in the web app's forms."""
    for name in names:
        value = fields.get(name)
        many = isinstance(value, list | tuple)
        values: Iterable = value if many else [value]
        if any(isinstance(v, str) and not is_single_line(v) for v in values):
            message = f"{'each ' if many else ''}must be {SINGLE_LINE_RULE}."
            raise Invalid("invalid_field", message, field=name)
