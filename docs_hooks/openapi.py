"""MkDocs hook: the API reference page's OpenAPI document, generated from the code at every
build (`manage.py spectacular`, the generator behind /api/v1/schema), so it cannot go stale.

The document is added to the built site as developers/openapi.json; it is never written into
docs/, so `mkdocs serve` does not see its own output as an edit."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_URI = "developers/openapi.json"


def generate_schema() -> bytes:
    """The schema of the default configuration: no .env, a placeholder secret, scratch state."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "ENV_FILE": "",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "docs-build-only-" + "x" * 40,
            "VAR_DIR": scratch,
        }
        result = subprocess.run(
            [sys.executable, "manage.py", "spectacular", "--format", "openapi-json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(
            "manage.py spectacular failed:\n" + result.stderr.decode(errors="replace")
        )
    return result.stdout


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, SCHEMA_URI, content=generate_schema()))
    return files
