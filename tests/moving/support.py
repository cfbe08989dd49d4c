"""Running the import commands as a person would, and reading what they print."""

import json
from dataclasses import dataclass
from io import StringIO

from django.conf import settings
from django.core.management import call_command

# The shared data folder beside the repository (see its SOURCES.md).
SHARED_DATA = settings.BASE_DIR.parent / "shared" / "data"


@dataclass
class Output:
    stdout: str
    stderr: str

    @property
    def created_id(self) -> str:
        """The `{"id": ...}` line, which must be the last line of stdout."""
        return json.loads(self.stdout.strip().splitlines()[-1])["id"]


def run(*args) -> Output:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return Output(out.getvalue(), err.getvalue())
