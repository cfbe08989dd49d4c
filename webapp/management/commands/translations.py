"""`manage.py translations`: collect the strings of the web app, the public pages and the
messages (e-mails, texts) into the French catalog and compile it (`make messages`). `--check`
(run by the test suite) fails when the catalog lags the code."""

import contextlib
import filecmp
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

# The folders holding strings people read; every other top-level folder is skipped.
SOURCE_FOLDERS = {"apikeys", "config", "core", "grooming", "publishing", "trails", "updates"}
SOURCE_FOLDERS |= {"schedules", "webhooks"}
SOURCE_FOLDERS |= {"reports", "alerts"}
SOURCE_FOLDERS |= {"public", "webapp"}
SOURCE_FOLDERS |= {"closures"}
SOURCE_FOLDERS |= {"cap"}


# What makemessages reads of them (the `django` domain).
SOURCE_SUFFIXES = (".py", ".html", ".txt")


def skipped_folders(root: Path) -> list[str]:
    """Top-level folders to skip (not `templates`: the pattern would skip the apps' own too),
    and `locale`, so that makemessages writes to LOCALE_PATHS[0] only, never to a catalog it
    comes across (webapp/locale while `--check` collects into a copy)."""
    folders = (path.name for path in root.iterdir() if path.is_dir())
    return sorted({"locale", *folders} - SOURCE_FOLDERS - {"templates"})


def collect(locale_dir: Path, root: Path) -> None:
    """makemessages over the source folders under `root` into the catalog in `locale_dir`."""
    with override_settings(LOCALE_PATHS=[locale_dir]), contextlib.chdir(root):
        call_command(
            "makemessages",
            locale=["fr"],
            no_location=True,
            no_obsolete=True,
            ignore_patterns=skipped_folders(root),
            verbosity=0,
        )


def copy_sources(target: Path) -> None:
    """The files of the source folders that makemessages reads, for `--check` to collect from:
    makemessages writes each template's Python rendering beside it and deletes it after, so
    two checks over the checkout at once (two test processes, say) read each other's
    half-written or vanished files."""
    base = Path(settings.BASE_DIR)
    for name in sorted(SOURCE_FOLDERS | {"templates"}):
        if (base / name).is_dir():
            shutil.copytree(base / name, target / name, ignore=_unread_files)


def _unread_files(directory: str, names: list[str]) -> list[str]:
    return [
        name
        for name in names
        if not name.endswith(SOURCE_SUFFIXES) and not Path(directory, name).is_dir()
    ]


class Command(BaseCommand):
    help = "Update and compile the web app's French catalog; --check: fail if it lags the code."

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Change nothing; fail on a string missing from the catalog, a fuzzy or "
            "untranslated entry, or a .mo that is not the .po compiled.",
        )

    def handle(self, *args, check: bool = False, **options):
        locale_dir = Path(settings.LOCALE_PATHS[0])
        if not check:
            collect(locale_dir, Path(settings.BASE_DIR))
            call_command("compilemessages", locale=["fr"], verbosity=0)
            return
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "locale"
            shutil.copytree(locale_dir, copy)
            sources = Path(scratch) / "sources"
            copy_sources(sources)
            collect(copy, sources)
            catalog = copy / "fr" / "LC_MESSAGES"
            statistics = msgfmt(catalog / "django.po", Path(scratch) / "collected.mo")
            if "fuzzy" in statistics or "untranslated" in statistics:
                raise CommandError(
                    f"The French catalog lags the code ({statistics.strip()}): run "
                    "`make messages` and translate the new entries."
                )
            if lacking := lacking_plural_forms(catalog / "django.po"):
                raise CommandError(
                    "The French catalog lags the code: a plural form is missing from "
                    + "; ".join(lacking)
                )
            compiled = Path(scratch) / "committed.mo"
            msgfmt(locale_dir / "fr" / "LC_MESSAGES" / "django.po", compiled)
            if not filecmp.cmp(compiled, locale_dir / "fr" / "LC_MESSAGES" / "django.mo", False):
                raise CommandError("django.mo is not django.po compiled: run `make messages`.")


def lacking_plural_forms(po: Path) -> list[str]:
    """The plural messages without each of the catalog's forms translated: msgfmt counts a
    message translated once its first form is."""
    text = po.read_text()
    forms = int(re.search(r"nplurals=(\d+)", text).group(1))
    lacking = []
    for entry in text.split("\n\n"):
        if "\nmsgid_plural " not in entry:
            continue
        strings = dict(re.findall(r'^msgstr\[(\d+)\] ((?:".*"\n?)+)', entry, re.MULTILINE))
        if not all(_unquoted(strings.get(str(n), "")) for n in range(forms)):
            lacking.append(_unquoted(re.search(r'^msgid ((?:".*"\n?)+)', entry, re.M).group(1)))
    return lacking


def _unquoted(lines: str) -> str:
    """A .po string's text: its quoted lines joined."""
    return "".join(re.findall(r'"(.*)"', lines))


def msgfmt(po: Path, mo: Path) -> str:
    """Compile as compilemessages does; gettext's statistics line."""
    done = subprocess.run(
        ["msgfmt", "--check-format", "--statistics", "-o", str(mo), str(po)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stderr
