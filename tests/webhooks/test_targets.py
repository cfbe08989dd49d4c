"""Webhook URLs taken apart, and the pattern the OpenAPI document gives them."""

import re

import pytest

from webhooks.targets import URL_PATTERN, RefusedTarget, Target, checked_address, parse


@pytest.mark.parametrize(
    "url, target",
    [
        (
            "https://Hooks.Example.org/a/b?x=1&y=%C3%A9",
            Target(
                "https://Hooks.Example.org/a/b?x=1&y=%C3%A9",
                "https",
                "hooks.example.org",
                443,
                "/a/b?x=1&y=%C3%A9",
            ),
        ),
        ("HTTP://example.org", Target("HTTP://example.org", "http", "example.org", 80, "/")),
        (
            "http://example.org:8080?q",
            Target("http://example.org:8080?q", "http", "example.org", 8080, "/?q"),
        ),
        ("http://[::1]:9000/h", Target("http://[::1]:9000/h", "http", "::1", 9000, "/h")),
        ("https://10.0.0.1/", Target("https://10.0.0.1/", "https", "10.0.0.1", 443, "/")),
    ],
)
def test_parse(url, target):
    assert parse(url) == target


def test_the_host_header_names_a_port_only_when_it_is_not_the_schemes():
    assert parse("https://example.org/").host_header == "example.org"
    assert parse("https://example.org:8443/").host_header == "example.org:8443"
    assert parse("http://[::1]:9000/").host_header == "[::1]:9000"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/",
        "https://example.org/#x",
        "https://u:p@example.org/",
        "https://example.org/a b",
        "https://example.org/café",
        "https://example.org:0/",
        "https://example.org:65536/",
        "https://-example.org/",
        "https://example..org/",
        "https://example.org/\n",
        "https:///path",
    ],
)
def test_refused_by_form(url):
    assert not re.fullmatch(URL_PATTERN, url)
    with pytest.raises(RefusedTarget, match="must be an http:// or https:// URL"):
        parse(url)


def test_a_bracketed_host_that_is_no_address_cannot_be_resolved(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    with pytest.raises(RefusedTarget, match="the host :::: cannot be resolved"):
        checked_address(parse("https://[::::]/x"))
