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


def test_the_admin_login_runs_under_the_policy(live_server, page, screenshot):
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text))
    page.goto(f"{live_server.url}/admin/login/")
    page.wait_for_selector("#login-form")
    screenshot("admin-login-under-csp")
    assert not [text for text in problems if "Content Security Policy" in text], problems
    assert page.evaluate("getComputedStyle(document.body).fontFamily") != "Times New Roman"
