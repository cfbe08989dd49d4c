"""What an operator's terminal shows when a command runs: the command's own report, no line
per background task, no broker warning when there is no broker, a progress bar only on a
terminal, and a last line that says what was done (issue 24)."""

import json
import logging
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from config.celery import app
from config.task_log import InProcessTaskFilter
from tests.moving.support import SHARED_DATA, run
from trails.models import TrailSystem

KILLINGTON = str(SHARED_DATA / "killington_vt_osm.geojson")
NORTHEAST = str(SHARED_DATA / "osm_ski_network_northeast.geojson")


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """A command line on the embedded default: no broker (tasks in-process), SQLite, no .env,
    JSON log lines as in production; migrated once for the module."""
    var = tmp_path_factory.mktemp("embedded")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(var),
        "ENV_FILE": "",
        "SECRET_KEY": "embedded-default-test",
        "VAR_DIR": str(var),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }

    def manage(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    migrated = manage("migrate", "--no-input")
    assert migrated.returncode == 0, migrated.stderr
    return manage


@pytest.mark.parametrize(
    ("arguments", "trails"),
    [([KILLINGTON], 193), ([NORTHEAST, "--ski-area", "killington"], 183)],
    ids=["killington-file", "killington-of-the-northeast-network"],
)
def test_the_killington_import_prints_a_short_clean_report(embedded, arguments, trails):
    result = embedded("import_osm", *arguments, "--name", "Killington", "--owner", "uid-alice")
    assert result.returncode == 0, result.stderr
    terminal = result.stderr.splitlines() + result.stdout.splitlines()
    assert len(terminal) < 30, terminal
    assert "celery" not in result.stderr  # no "Task ... succeeded" line per trail
    assert "No hostname was supplied" not in result.stderr
    assert "\r" not in result.stderr  # not a terminal: no progress bar redraws
    created = json.loads(result.stdout)["id"]
    assert result.stderr.splitlines()[-1] == (
        f"Created the trail system 'Killington' ({created}), owned by uid-alice: "
        f"{trails} trails and 0 points."
    )


def test_a_network_of_many_areas_exits_non_zero_listing_them(embedded):
    result = embedded("import_osm", str(SHARED_DATA / "osm_ski_network_west.geojson"),
                      "--name", "West", "--owner", "uid-alice")  # fmt: skip
    assert result.returncode == 1
    assert "This file covers 76 ski areas" in result.stderr
    assert "Winter Park" in result.stderr and "194 trails" in result.stderr
    assert result.stdout == ""


def test_other_commands_print_only_their_own_lines(embedded):
    result = embedded("create_trail_system", "--name", "Pine Hill", "--owner", "uid-alice")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"Created the trail system 'Pine Hill' ({json.loads(result.stdout)['id']}), owned by "
        "uid-alice: 0 trails and 0 points."
    ]


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.django_db
def test_on_a_terminal_the_progress_bar_is_drawn_in_place_and_erased():
    terminal, out = Terminal(), StringIO()
    call_command("import_osm", NORTHEAST, "--each-area", "--owner", "o", "--dry-run",
                 stdout=out, stderr=terminal)  # fmt: skip
    shown = terminal.getvalue()
    assert "Checking:" in shown and "areas" in shown  # one bar over the 93 areas
    assert "\n" not in shown.split("OpenStreetMap features kept")[0].strip("\r ")
    report = shown.split("\r")[-1].splitlines()
    assert report[-2] == "Would create 93 trail systems, one per ski area: 5,050 trails."
    assert not TrailSystem.objects.exists()


@pytest.mark.django_db
def test_a_re_import_meeting_existing_ids_says_so_in_one_line(tmp_path):
    from demo.loader import load_demo

    system, _ = load_demo()
    path = tmp_path / "demo.geojson"
    path.write_text(run("export_trail_system", system.pk).stdout)
    trails, points = system.trails.count(), system.points.count()
    with pytest.raises(Exception) as refusal:
        run("create_trail_system", "--name", "Again", "--owner", "o", "--from-geojson", str(path))
    lines = str(refusal.value).splitlines()
    assert lines == [
        "Nothing was imported.",
        f"{trails} trails and {points} points of this file already exist here "
        f"({', '.join(sorted(system.trails.values_list('pk', flat=True))[:5])} and "
        f"{trails + points - 5} more): --new-ids imports a copy.",
    ]


@app.task
def chatty_task(fail: bool) -> None:
    logging.getLogger("tests.chatty").info("a line per task")
    if fail:
        raise RuntimeError("the task failed")


def test_in_process_tasks_log_their_failures_but_not_their_successes(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    handler.addFilter(InProcessTaskFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        chatty_task.apply(args=(False,))
        chatty_task.apply(args=(True,), throw=False)
        logging.getLogger("tests.chatty").info("outside a task")
    finally:
        root.removeHandler(handler)
    messages = [record.getMessage() for record in records]
    assert "a line per task" not in messages
    assert "outside a task" in messages
    failures = [r for r in records if r.levelno >= logging.ERROR]
    assert failures and "the task failed" in failures[0].getMessage()
