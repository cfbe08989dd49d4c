"""The Content-Security-Policy in a real browser: the pages we serve run under it with no
violation (defect 8). Swagger UI is the page with the most scripts and styles."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_docs_page_runs_under_the_policy(live_server, page, screenshot):
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text))
    page.goto(f"{live_server.url}/api/v1/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    page.wait_for_selector("text=/keys")
    screenshot("docs-under-csp")
    assert not [text for text in problems if "Content Security Policy" in text], problems


def test_the_admin_login_runs_under_the_policy(live_server, page, screenshot, settings):
    # With Firebase sign-in on, the page also loads the Firebase Web SDK from our static files.
    settings.FIREBASE_WEB_API_KEY = "test-web-api-key"
    settings.FIREBASE_AUTH_DOMAIN = "demo-trails.firebaseapp.com"
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text))
    page.on("pageerror", lambda error: problems.append(f"Content Security Policy? {error}"))
    page.goto(f"{live_server.url}/admin/login/")
    page.wait_for_selector("#firebase-form")
    page.wait_for_selector("#link-form")
    page.click("#password-signin summary")
    page.wait_for_selector("#login-form")
    screenshot("admin-login-under-csp")
    assert not [text for text in problems if "Content Security Policy" in text], problems
    assert page.evaluate("getComputedStyle(document.body).fontFamily") != "Times New Roman"
    # No empty error box before anything went wrong.
    assert not page.is_visible("#firebase-error")
