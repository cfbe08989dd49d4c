"""/metrics adds up the web server's processes (issue 31 item 5): the Procfile's `web` line,
as production runs it, answers each scrape with every gunicorn worker's counts, not the counts
of whichever worker took the scrape."""

import os
import re
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from tests.ports import free_port

pytestmark = pytest.mark.django_db(transaction=True)

BATCH = 20


def procfile_line(name: str) -> str:
    procfile = Path(settings.BASE_DIR, "Procfile").read_text()
    return re.search(rf"^{name}: (.*)$", procfile, re.MULTILINE).group(1)


@pytest.fixture
def web(tmp_path):
    """The Procfile's web line on a free port, with the test's database."""
    port = free_port()
    database = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "metrics-test-secret-key",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        ),
        "VAR_DIR": str(tmp_path / "var"),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "LOG_FORMAT": "text",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.pop("DEBUG", None)
    log = open(tmp_path / "web.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        ["bash", "-c", f"exec {procfile_line('web')}"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "web.log").read_text()
            time.sleep(0.2)
        yield base, tmp_path / "var" / "prometheus-web"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()


def healthz_requests(families) -> float:
    return sum(
        sample.value
        for family in families
        for sample in family.samples
        if sample.name == "django_http_requests_total_by_view_transport_method_total"
        and sample.labels.get("view") == "healthz"
    )


def scraped(base: str) -> float:
    body = httpx.get(f"{base}/metrics", timeout=10).text
    return healthz_requests(text_string_to_metric_families(body))


def per_worker(directory: Path, scratch: Path) -> dict[str, float]:
    """Each worker's own count, read from its file alone (prometheus_client's reader)."""
    counts = {}
    for path in directory.glob("counter_*.db"):
        alone = scratch / path.stem
        alone.mkdir(exist_ok=True)
        shutil.copy(path, alone / path.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        counts[path.stem.removeprefix("counter_")] = healthz_requests(registry.collect())
    return counts


def test_two_scrapes_after_both_workers_answered_show_the_same_totals(web, tmp_path):
    base, directory = web
    deadline = time.monotonic() + 60
    with ThreadPoolExecutor(BATCH) as pool:
        # Until both workers have answered some (one may still be starting).
        while sum(1 for n in per_worker(directory, tmp_path).values() if n) < 2:
            assert time.monotonic() < deadline, "the workers do not count in one directory"
            answers = pool.map(lambda _: httpx.get(f"{base}/healthz", timeout=10), range(BATCH))
            assert {answer.status_code for answer in answers} == {200}
    workers = per_worker(directory, tmp_path)

    scrapes = [scraped(base), scraped(base)]

    assert scrapes == [sum(workers.values())] * 2
    assert all(scrapes[0] > count for count in workers.values())
