"""The pictures of the docs are the browser tests' own: every PNG under docs/screenshots/ is
written there by a test (`screenshot(name, docs=True)`), so a run of the suite renews them all
and none is a hand-made picture that has gone stale. (`mkdocs build --strict` checks the
other way: every picture a page shows exists.)"""

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
# Calls of the screenshot fixture and of save_screenshot(page, ...) with docs=True.
WRITTEN = re.compile(r'screenshot\(\s*(?:page,\s*)?"(?P<name>[^"]+)",[^)]*\bdocs=True')


def test_every_picture_of_the_docs_is_written_by_a_browser_test():
    written = {
        match["name"]
        for source in (ROOT / "tests").rglob("*.py")
        for match in WRITTEN.finditer(source.read_text())
    }
    pictures = {path.stem for path in (ROOT / "docs" / "screenshots").glob("*.png")}
    assert pictures - written == set(), "pictures no test writes: remove them or write them"
    assert written - pictures == set(), "a test writes a picture that is not committed"
