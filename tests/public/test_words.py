"""The public pages' words: gettext's, in the system's language (the index in the visitor's),
with the plural a count asks for."""

import json
import re

import pytest
from django.db import transaction

from core.compiles import request_compile
from tests.factories import TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def compiled(django_capture_on_commit_callbacks):
    def compile_system(name: str, statuses: list[str], language: str = "en"):
        system = TrailSystemFactory(name=name, language=language)
        for order, status in enumerate(statuses):
            TrailFactory(trail_system=system, name=f"Trail {order}", status=status, order=order)
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            request_compile(system, reason="test")
        return system

    return compile_system


def summaries(html: str) -> list[str]:
    return re.findall(r'<span class="system-summary">(.*?)</span>', html)


def test_the_index_says_how_many_trails_are_open_with_the_plural_of_its_count(client, compiled):
    compiled("A One of one", ["Open"])
    compiled("B Two of three", ["Open", "Open", "Closed"])
    compiled("C None of one", ["Closed"])

    english = client.get("/", headers={"accept-language": "en"}).content.decode()
    french = client.get("/", headers={"accept-language": "fr"}).content.decode()

    assert '<html lang="fr">' in french
    assert summaries(english) == ["1 trail open of 1", "2 trails open of 3", "0 trails open of 1"]
    # French counts 0 and 1 as one: "0 sentier ouvert".
    assert summaries(french) == [
        "1 sentier ouvert sur 1",
        "2 sentiers ouverts sur 3",
        "0 sentier ouvert sur 1",
    ]


def map_texts(response) -> dict:
    match = re.search(
        r'<script id="map-config" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    return json.loads(match.group(1))["texts"]


@pytest.mark.parametrize(
    ("language", "one", "other", "open_word"),
    [
        ("en", "and {n} more change", "and {n} more changes", "Open"),
        ("fr", "et {n} autre changement", "et {n} autres changements", "Ouvert"),
    ],
)
def test_the_map_script_gets_its_words_and_both_forms_of_a_count_in_the_systems_language(
    client, compiled, language, one, other, open_word
):
    """map.js picks the form by Intl.PluralRules (test_words_browser.py shows it)."""
    system = compiled("Pine Hill Nordic", ["Open"], language=language)

    texts = map_texts(client.get(f"/map/{system.pk}", headers={"accept-language": "de"}))

    assert texts["more_changes"] == {"one": one, "other": other}
    assert texts["open"] == open_word


def test_the_map_page_speaks_the_systems_language_whatever_the_visitors(client, compiled):
    system = compiled("Piste du Lac", ["Open"], language="fr")

    html = client.get(f"/map/{system.pk}", headers={"accept-language": "en"}).content.decode()

    assert '<html lang="fr">' in html
    assert "Carte des sentiers de Piste du Lac" in html
    assert "Recevoir les alertes" in html
    assert "Signaler un problème" in html
