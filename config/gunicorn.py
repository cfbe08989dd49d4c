"""gunicorn's settings for the web process (the Procfile's `web` line: `-c config/gunicorn.py`).

/metrics adds up every worker's counts through prometheus_client's multiprocess mode, in
PROMETHEUS_MULTIPROC_DIR. Unset, the web process takes a directory of its own,
`$VAR_DIR/prometheus-web` (VAR_DIR: the checkout's `var/`), emptied at each start so that no
earlier run's counts are added in. Set, the directory is the operator's (shared with the
Celery worker, to see its compile histograms on /metrics too), who empties it at each start.
The variable is set here, in gunicorn's master before any worker imports prometheus_client,
which reads it once.
"""

import os
import shutil
from pathlib import Path

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"


def on_starting(server) -> None:
    if os.environ.get(MULTIPROC_DIR):
        return
    var_dir = Path(os.environ.get("VAR_DIR") or Path(__file__).resolve().parent.parent / "var")
    directory = (var_dir / "prometheus-web").resolve()
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    os.environ[MULTIPROC_DIR] = str(directory)


def child_exit(server, worker) -> None:
    """A worker that ends takes its live gauges with it."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
