"""Anonymous reports are bounded: per client (an IPv6 client by its /64), per system per day
(reportsPerDay), over the whole site (issue 35, item 2); the shared caps count the reports
kept, never a refused post (issue 40, item 3)."""

import html

import pytest
from django.test import override_settings

from reports.models import Report
from tests.factories import TrailFactory, TrailSystemFactory, line

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_300_reports_from_60_addresses_store_at_most_reports_per_day(system, file_report):
    system.reports_per_day = 50
    system.save()
    statuses = []
    for n in range(300):
        address = f"203.0.113.{n % 60 + 1}"
        # Spread over the trail so that each is its own report, not one group.
        lat = f"{45.690 + (n % 10) * 0.0012:.4f}"
        statuses.append(file_report(system, address=address, lat=lat).status_code)
    assert statuses.count(201) == 50
    assert set(statuses) == {201, 429}
    assert Report.objects.filter(trail_system=system).count() == 50


def test_past_reports_per_day_the_form_says_paused_and_gives_the_contact(system, file_report):
    system.reports_per_day = 1
    system.save()
    assert file_report(system).status_code == 201
    answer = file_report(system)
    assert answer.status_code == 429
    assert answer.json()["error"]["code"] == "reports_paused"
    assert "+1 406-555-0100" in answer.json()["error"]["message"]
    page = file_report(system, json=False)
    assert page.status_code == 429
    assert "+1 406-555-0100" in html.unescape(page.content.decode())


def test_one_client_is_bounded(system, file_report):
    statuses = [
        file_report(system, address="198.51.100.7", lat=f"{45.690 + n * 0.0012:.4f}").status_code
        for n in range(7)
    ]
    assert statuses == [201] * 5 + [429] * 2


def test_an_ipv6_client_is_counted_by_its_64(system, file_report):
    statuses = [
        file_report(
            system, address=f"2001:db8:1:2::{n + 1:x}", lat=f"{45.690 + n * 0.0012:.4f}"
        ).status_code
        for n in range(7)
    ]
    assert statuses == [201] * 5 + [429] * 2
    other = file_report(system, address="2001:db8:1:3::1")
    assert other.status_code == 201


@override_settings(REPORTS_PER_HOUR=3)
def test_the_whole_site_is_bounded(system, file_report):
    statuses = [file_report(system, lat=f"{45.690 + n * 0.0012:.4f}").status_code for n in range(5)]
    assert statuses == [201] * 3 + [429] * 2


@pytest.mark.slow
def test_2100_invalid_posts_from_420_addresses_leave_the_site_cap_to_real_reports(
    system, file_report
):
    """The attack pass's junk (an invalid category, five a client: each client's bound) used
    up the site-wide cap for an hour; now only the per-address bound counts it."""
    statuses = {
        file_report(system, address=f"203.0.{n // 250}.{n % 250 + 1}", category="junk").status_code
        for n in range(420)
        for _ in range(5)
    }
    assert statuses == {400}
    other = TrailSystemFactory(name="Bear Paw")
    TrailFactory(trail_system=other, geometry=line(-110.0, 48.0))

    answer = file_report(other, address="192.0.2.44", lat="48.0005", lng="-109.9995")

    assert answer.status_code == 201, answer.content
    # The last junk client (its bound's window still open however long the run took).
    assert file_report(other, address="203.0.1.170", lat="48.0005").status_code == 429


@override_settings(REPORTS_PER_HOUR=3)
def test_refused_posts_do_not_count_toward_the_site_cap(system, file_report):
    refused = [file_report(system, category="junk").status_code for _ in range(5)]
    assert refused == [400] * 5
    kept = [file_report(system, lat=f"{45.690 + n * 0.0012:.4f}").status_code for n in range(4)]
    assert kept == [201] * 3 + [429]


def test_a_system_with_reports_off_refuses_them(system, file_report):
    system.reports_per_day = 0
    system.save()
    assert file_report(system).status_code == 403
    assert not Report.objects.exists()
