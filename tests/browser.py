"""Real-browser fixtures: Playwright driving Debian's chromium against pytest-django's live server.

Tests that take `page` also need the `live_server` fixture (and so a transactional database).
Screenshots go to `test-output/screenshots/` (or `SCREENSHOT_DIR`) for a person to look at.
Those the documentation shows (`screenshot(name, docs=True)`) also go to `docs/screenshots/`
when `DOCS_SCREENSHOTS=1` (`make screenshots`), so the pictures of the docs are what the tests
saw; an ordinary `make test` leaves those committed files alone (their clocks and dates would
change every run, and every branch's copies would conflict).
"""

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking"]
SCREENSHOT_DIR = Path(os.environ.get("SCREENSHOT_DIR", "test-output/screenshots"))
DOCS_SCREENSHOT_DIR = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WRITE_DOCS_SCREENSHOTS = os.environ.get("DOCS_SCREENSHOTS") == "1"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does it)")
    # Playwright's sync API keeps an event loop in the test thread; the ORM calls the tests
    # make between browser steps are ordinary synchronous ones.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _browser_contexts_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test's browser contexts are closed when it ends, its own ones too: a page left open
    goes on polling and streaming from the session's live server into the next test, whose
    database may be gone or not allowed."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def save_screenshot(page: Page, name: str, *, docs: bool = False, full_page: bool = True) -> Path:
    """`<name>.png` in the screenshot folder, and in docs/screenshots/ too when the docs show it."""
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOT_DIR / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    if docs and WRITE_DOCS_SCREENSHOTS:
        DOCS_SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOT_DIR / path.name)
    return path


@pytest.fixture
def screenshot(page: Page) -> Callable[..., Path]:
    """Save the page as `<name>.png` in the screenshot folder and return its path; with
    `docs=True` also as `docs/screenshots/<name>.png`, where the documentation reads it, when
    DOCS_SCREENSHOTS=1."""

    def take(name: str, **options) -> Path:
        return save_screenshot(page, name, **options)

    return take
