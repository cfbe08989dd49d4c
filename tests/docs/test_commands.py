"""Every command the quick start and the operators' pages show is run here as a reader pastes
it (issue 24): each ```sh block of docs/quick-start.md and docs/operators/*.md, in order, each
in a shell of its own (a block stands alone), in a fresh database per page.

A page is read after the quick start: `make run` serves in another terminal. So for every page
`make run` starts first, in the background, and the page's commands run beside it, in a scratch
copy of the checkout (symbolic links, with `../shared` beside it) so that the files they write
stay out of the repository. The quick start runs on a fresh machine's embedded default
(SQLite in an empty var/). Each operators' page gets a new PostgreSQL database holding what
`make run` made of an empty one (migrated, the demo loaded and published): `make run` runs once
on an empty database, which then serves as the template of each page's database, its var/
copied beside. The one change made to what the page shows: the server listens on a free port
instead of 8000, which another developer's server may hold, and the commands'
`127.0.0.1:8000` follow it.

`make test` itself is not run here: it is the command that runs this test.
"""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.ports import free_port

# One process of `make test` runs them all: `make run` makes the template database once.
pytestmark = pytest.mark.xdist_group("docs-commands")

ROOT = Path(settings.BASE_DIR)
PAGES = [ROOT / "docs" / "quick-start.md", *sorted((ROOT / "docs" / "operators").glob("*.md"))]
SH_BLOCK = re.compile(r"^(?P<indent>[ \t]*)```sh\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
RUNS_THIS_TEST = "make test"
SERVER = "make run"
SHOWN_ADDRESS = "127.0.0.1:8000"


def commands(page: Path) -> list[str]:
    """The page's ```sh blocks, in order, unindented (a block may sit in a list item)."""
    blocks = []
    for match in SH_BLOCK.finditer(page.read_text()):
        indent = len(match["indent"])
        blocks.append("".join(line[indent:] for line in match["body"].splitlines(keepends=True)))
    return blocks


def test_the_pages_show_commands_and_say_how_the_server_runs():
    shown = {page.name: commands(page) for page in PAGES}
    assert shown["quick-start.md"][:2] == [f"{SERVER}\n", f"{RUNS_THIS_TEST}\n"]
    assert shown["commands.md"] and shown["moving-systems.md"]


class PostgreSQL:
    """Databases beside the test database, on the same server (named after the process of
    `make test` too: the test database's name changes when its first test sets it up)."""

    def __init__(self):
        db = settings.DATABASES["default"]
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        self.prefix = "_".join(filter(None, (db["NAME"], "docs", worker)))
        self.admin = {
            "host": db.get("HOST") or "127.0.0.1",
            "port": db.get("PORT") or 5432,
            "user": db.get("USER") or "postgres",
            "password": db.get("PASSWORD") or None,
            "dbname": "postgres",
            "autocommit": True,
        }

    def url(self, name: str) -> str:
        a = self.admin
        password = f":{a['password']}" if a["password"] else ""
        return f"postgres://{a['user']}{password}@{a['host']}:{a['port']}/{name}"

    def create(self, name: str, template: str | None = None) -> str:
        self.drop(name)
        with psycopg.connect(**self.admin) as connection:
            if template:  # a copy needs the template without sessions
                connection.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    [template],
                )
            copy = f' TEMPLATE "{template}"' if template else ""
            connection.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def drop(self, name: str) -> None:
        with psycopg.connect(**self.admin) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def scratch_checkout(tmp_path: Path) -> Path:
    """The checkout as links, `../shared` beside it, and its own var/ (a real folder)."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in {"var", ".env", "site", "test-output"}:
            (checkout / entry.name).symlink_to(entry)
    (checkout / "var").mkdir()
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    return checkout


def wait_until_serving(port: int, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"`make run` stopped:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"`make run` did not serve within 240 s:\n{log.read_text()[-3000:]}")


def environment(tmp_path: Path, checkout: Path, database_url: str | None) -> dict[str, str]:
    """A shell of a reader's machine: no .env, no broker (the embedded default's in-process
    tasks), a database of its own when given, else the embedded default's SQLite."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "ENV_FILE": "",
        "SECRET_KEY": "docs-commands-test-" + "x" * 40,
        "VAR_DIR": str(checkout / "var"),
        "LOG_FORMAT": "text",
    }
    return env | ({"DATABASE_URL": database_url} if database_url else {})


@contextmanager
def make_run(checkout: Path, env: dict[str, str]) -> Iterator[tuple[int, subprocess.Popen]]:
    """`make run` serving in the background on a free port, stopped afterwards: its port and
    make's process (the leader of its process group)."""
    port = free_port()
    log = checkout.parent / "make-run.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            ["make", "run", f"PORT={port}"],
            cwd=checkout,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_serving(port, server, log)
        yield port, server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        stopped(server.pid)


def stopped(group: int, seconds: float = 30) -> bool:
    """Whether every process of `make run` exited within `seconds` (the server, the background
    loop): none holds a session on the database the next page copies. What is left then is
    killed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    return False


@pytest.fixture(scope="module")
def after_quick_start(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """The template database and var/ that `make run` made of an empty PostgreSQL database."""
    postgresql = PostgreSQL()
    template = f"{postgresql.prefix}_template"
    tmp_path = tmp_path_factory.mktemp("quick-start")
    checkout = scratch_checkout(tmp_path)
    with make_run(checkout, environment(tmp_path, checkout, postgresql.create(template))):
        pass
    yield template, checkout / "var"
    postgresql.drop(template)


def checkout_after_quick_start(tmp_path: Path, request) -> tuple[Path, dict[str, str]]:
    """A scratch checkout and its shell, on a copy of what `make run` made of an empty
    database (and its var/)."""
    checkout = scratch_checkout(tmp_path)
    template, var = request.getfixturevalue("after_quick_start")
    postgresql = PostgreSQL()
    database_url = postgresql.create(f"{postgresql.prefix}_page", template=template)
    request.addfinalizer(lambda: postgresql.drop(f"{postgresql.prefix}_page"))
    (checkout / "var").rmdir()
    shutil.copytree(var, checkout / "var", symlinks=True)
    return checkout, environment(tmp_path, checkout, database_url)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT / "docs")) for p in PAGES])
def test_every_command_of_the_page_works_as_shown(page, tmp_path, request):
    shown = commands(page)
    if not shown:
        pytest.skip(f"{page.name} shows no command")
    blocks = [b for b in shown if b.strip() not in (SERVER, RUNS_THIS_TEST)]
    if page.name == "quick-start.md":
        checkout = scratch_checkout(tmp_path)
        env = environment(tmp_path, checkout, None)
    else:
        checkout, env = checkout_after_quick_start(tmp_path, request)
    with make_run(checkout, env) as (port, _make):
        for number, block in enumerate(blocks, start=1):
            script = "set -euo pipefail\n" + block.replace(SHOWN_ADDRESS, f"127.0.0.1:{port}")
            result = subprocess.run(
                ["bash", "-c", script],
                cwd=checkout,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert result.returncode == 0, (
                f"{page.name}, command block {number} failed (exit {result.returncode}):\n"
                f"{block}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n"
                f"{result.stderr[-3000:]}"
            )


def test_make_run_ends_every_process_when_its_script_alone_is_stopped(tmp_path, request):
    """A supervisor's or a developer's `kill` stops the script alone (SIGTERM to it, not to its
    process group as Ctrl-C does): the server and the loop beside it stop with it, none left
    holding the port or a database session."""
    checkout, env = checkout_after_quick_start(tmp_path, request)
    with make_run(checkout, env) as (port, make):
        [script] = Path(f"/proc/{make.pid}/task/{make.pid}/children").read_text().split()
        os.kill(int(script), signal.SIGTERM)

        make.wait(timeout=20)
        assert stopped(make.pid, seconds=20), "a process of `make run` outlived its script"
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
