"""Schemathesis against /api/v1/schema: every check, in its coverage, fuzzing and stateful
phases, as a manager with an ID token and as a write API key. No answer may be a 5xx and
none may disagree with the schema.

`make test` runs a bounded, deterministic pass (fixed seed, derandomized generation);
`make fuzz` sets FUZZ_SECONDS for a long randomized run per credential.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.test.testcases import LiveServerThread

from apikeys.tokens import mint_emulator_token
from tests.factories import (
    PointFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    create_api_key,
)

SERVER_PORT = 18401
SEED = 20261122
FUZZ_SECONDS = int(os.environ.get("FUZZ_SECONDS", "0"))
# Bounded run: cases per operation and phase; the two runs stay within two minutes.
BOUNDED_EXAMPLES = 4


@pytest.fixture(scope="module")
def live_api(django_db_blocker):
    thread = LiveServerThread("127.0.0.1", static_handler=StaticFilesHandler, port=SERVER_PORT)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    yield f"http://127.0.0.1:{SERVER_PORT}"
    thread.terminate()


@pytest.fixture
def owner_system(transactional_db):
    """A populated system: the ids of its rows, so generated requests reach the services
    behind the routes instead of stopping at 404."""
    system = TrailSystemFactory()
    return {
        "system": system,
        "/trail-systems/": system.pk,
        "/trails/": TrailFactory(trail_system=system).pk,
        "/points/": PointFactory(trail_system=system).pk,
        "/updates/": UpdateFactory(trail_system=system).pk,
    }


@pytest.fixture
def credentials(owner_system):
    """The system's owner, as an ID token and as a read-write API key."""
    owner = owner_system["system"].owner
    _, key = create_api_key(owner)
    lifetime = max(3600, FUZZ_SECONDS * 2)
    return {
        "id-token": mint_emulator_token(owner.uid, owner.email, expires_in=lifetime),
        "api-key": key,
    }


def write_config(path: Path, owner_system: dict) -> Path:
    """schemathesis.toml: each route family's path parameters set to the system's rows."""
    system_id = owner_system["/trail-systems/"]
    sections = [
        f'[[operations]]\ninclude-path-regex = "^{prefix}"\n'
        f'parameters = {{ system_id = "{system_id}", id = "{row_id}" }}\n'
        for prefix, row_id in owner_system.items()
        if prefix.startswith("/")
    ]
    path.write_text("\n".join(sections))
    return path


def run_schemathesis(
    base_url: str, credential: str, config: Path, report_dir: Path
) -> subprocess.CompletedProcess:
    budget = (
        ["--max-time", str(FUZZ_SECONDS), "--generation-database", "none"]
        if FUZZ_SECONDS
        else [
            "--max-examples",
            str(BOUNDED_EXAMPLES),
            "--seed",
            str(SEED),
            "--generation-deterministic",
        ]
    )
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(config),
        "run",
        f"{base_url}/api/v1/schema",
        "--url",
        f"{base_url}/api/v1",
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--header",
        f"Authorization: Bearer {credential}",
        "--workers",
        "2",
        "--report",
        "junit",
        "--report-dir",
        str(report_dir),
        "--no-color",
        *budget,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=FUZZ_SECONDS + 600)


@pytest.mark.parametrize("kind", ["id-token", "api-key"])
def test_no_server_error_and_no_schema_violation(
    live_api, owner_system, credentials, kind, tmp_path
):
    config = write_config(tmp_path / "schemathesis.toml", owner_system)
    result = run_schemathesis(live_api, credentials[kind], config, tmp_path)

    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-2000:]
