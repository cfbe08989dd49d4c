"""The French catalog keeps up with the code: every string the web app, the public pages and
the messages mark is in it, translated (nothing fuzzy, every plural form), and the compiled .mo
is the .po's."""

import shutil

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError


def test_every_string_of_the_web_app_is_translated_into_french():
    call_command("translations", check=True)


@pytest.fixture
def catalog_copy(settings, tmp_path):
    copy = tmp_path / "locale"
    shutil.copytree(settings.LOCALE_PATHS[0], copy)
    settings.LOCALE_PATHS = [copy]
    return copy / "fr" / "LC_MESSAGES"


def test_a_string_missing_from_the_catalog_fails_the_check(catalog_copy):
    po = catalog_copy / "django.po"
    text = po.read_text()
    po.write_text(text.replace('msgstr "Vos réseaux de sentiers"', 'msgstr ""'))
    with pytest.raises(CommandError, match="lags the code"):
        call_command("translations", check=True)


@pytest.mark.parametrize(
    "translated",
    [
        'msgstr "Carte des sentiers de %(name)s"',  # the map page's title
        'msgstr "Confirmez votre abonnement à %(system_name)s"',  # an e-mail's subject
    ],
)
def test_a_string_of_the_public_pages_or_the_messages_untranslated_fails_the_check(
    catalog_copy, translated
):
    po = catalog_copy / "django.po"
    text = po.read_text()
    assert translated in text
    po.write_text(text.replace(translated, 'msgstr ""'))
    with pytest.raises(CommandError, match="lags the code"):
        call_command("translations", check=True)


@pytest.mark.parametrize("change", ["emptied", "removed"])
def test_a_plural_form_missing_fails_the_check(catalog_copy, change):
    """msgfmt counts a plural message translated once its first form is: the check does not."""
    po = catalog_copy / "django.po"
    text = po.read_text()
    form = 'msgstr[1] "et {n} autres changements"\n'
    assert form in text
    po.write_text(text.replace(form, 'msgstr[1] ""\n' if change == "emptied" else ""))
    with pytest.raises(CommandError, match=r"plural form is missing from and \{n\} more change"):
        call_command("translations", check=True)


def test_a_stale_mo_fails_the_check(catalog_copy):
    (catalog_copy / "django.mo").write_bytes(b"")
    with pytest.raises(CommandError, match=r"not django\.po compiled"):
        call_command("translations", check=True)


def test_the_catalog_lives_where_django_finds_it():
    assert settings.LOCALE_PATHS[0].joinpath("fr", "LC_MESSAGES", "django.mo").exists()
