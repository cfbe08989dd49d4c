"""The pictures of the docs are the browser tests' own: every PNG under docs/screenshots/ is
written there by a test (`screenshot(name, docs=True)`), so a run of the suite renews them all
and none is a hand-made picture that has gone stale. (`mkdocs build --strict` checks the
other way: every picture a page shows exists.)"""

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
# Calls of the screenshot fixture and of save_screenshot(page, ...) with docs=True; a name may
# be an f-string whose fields (the viewport, say) stand for any word.
WRITTEN = re.compile(r'screenshot\(\s*(?:page,\s*)?(?P<f>f?)"(?P<name>[^"]+)",[^)]*\bdocs=True')
FIELD = re.compile(r"\{[^}]*\}")


def name_pattern(match: re.Match) -> re.Pattern:
    if not match["f"]:
        return re.compile(re.escape(match["name"]))
    words = [re.escape(word) for word in FIELD.split(match["name"])]
    return re.compile(r"[\w-]+".join(words))


def test_every_picture_of_the_docs_is_written_by_a_browser_test():
    written = [
        name_pattern(match)
        for source in (ROOT / "tests").rglob("*.py")
        for match in WRITTEN.finditer(source.read_text())
    ]
    pictures = {path.stem for path in (ROOT / "docs" / "screenshots").glob("*.png")}
    unwritten = {name for name in pictures if not any(p.fullmatch(name) for p in written)}
    assert unwritten == set(), "pictures no test writes: remove them or write them"
    uncommitted = [p.pattern for p in written if not any(p.fullmatch(name) for name in pictures)]
    assert uncommitted == [], "a test writes a picture that is not committed"
