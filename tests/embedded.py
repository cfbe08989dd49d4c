"""The embedded default's background process, as `make run` starts it beside the server."""

import subprocess
import sys

import pytest
from django.conf import settings

from tests.integration.conftest import embedded_default_environment, terminate


@pytest.fixture
def background_loop(tmp_path):
    """`manage.py repeat` without arguments (scripts/run.sh): a process of its own on this
    test's database, with no broker; its output in the test's `repeat.log`."""
    with open(tmp_path / "repeat.log", "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "repeat"],
            env=embedded_default_environment(),
            cwd=settings.BASE_DIR,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    yield process
    terminate(process)
