"""Shared set-up for benchmarks: a fresh PostgreSQL database of their own, migrated."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
_BASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/trails")
# A database of its own, beside the one DATABASE_URL names: "<name>_bench".
BENCH_DATABASE = f"{urlparse(_BASE_URL).path.lstrip('/') or 'trails'}_bench"


def bench_database_url() -> str:
    return urlunparse(urlparse(_BASE_URL)._replace(path=f"/{BENCH_DATABASE}"))


def setup_django() -> None:
    """Recreate the bench database, point Django at it, migrate. Call once per run."""
    import psycopg  # only the set-up needs the driver directly

    admin_url = urlunparse(urlparse(bench_database_url())._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DATABASE}")
    os.environ["DATABASE_URL"] = bench_database_url()
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django  # after DJANGO_SETTINGS_MODULE and sys.path are set just above

    django.setup()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=os.environ,
        check=True,
    )
