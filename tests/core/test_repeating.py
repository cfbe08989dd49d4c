"""The embedded default's background work: `manage.py repeat` runs several repeating commands
in one process, each on its own period, and a pass that fails stops none of them."""

import os
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from core.actors import Actor, Via
from core.repeating import (
    RepeatingCommand,
    repeating_command,
    run_together,
    stop_when_parent_ends,
)
from tests.factories import TrailFactory
from tests.integration.conftest import embedded_default_environment, wait_for
from trails import services as trail_services
from webhooks import services as webhook_services

pytestmark = pytest.mark.django_db(transaction=True)

ACTOR = Actor("manager", Via.WEB_APP)


class BrokenPass(RepeatingCommand):
    """A command whose every pass fails, as one with a bug or a missing table would."""

    done_label = "Broken"

    def __init__(self):
        super().__init__()
        self.tries = 0

    def run_pass(self) -> int:
        self.tries += 1
        raise RuntimeError("this pass always fails")


def test_a_failing_pass_stops_neither_its_own_command_nor_the_others(system, receiver):
    target = receiver()
    webhook_services.create_endpoint(
        system=system, url=target.url, events=["trail.status_changed"], actor=ACTOR
    )
    broken, stop = BrokenPass(), threading.Event()
    loops = [(broken, 1), (repeating_command("send_webhooks"), 1)]
    background = threading.Thread(target=run_together, args=(loops, stop))
    background.start()
    try:
        trail = TrailFactory(trail_system=system, status="Open")
        trail_services.change_trail(trail=trail, status="Closed", actor=ACTOR)
        target.wait_for(1, timeout=30)  # sent by the loop beside the broken one
        wait_for(lambda: broken.tries >= 2, timeout=30)  # which keeps its own period
    finally:
        stop.set()
        background.join(timeout=30)
    assert not background.is_alive()  # stopped at once, mid-wait


def test_only_repeating_commands_with_a_period_are_taken():
    with pytest.raises(CommandError, match="not a command with --every"):
        call_command("repeat", "migrate=5")
    with pytest.raises(CommandError, match="not a command with --every"):
        call_command("repeat", "no_such_command=5")
    for wrong in ("send_webhooks", "send_webhooks=soon", "send_webhooks=0", "send_webhooks=nan"):
        with pytest.raises(CommandError, match="COMMAND=SECONDS"):
            call_command("repeat", wrong)


def test_the_loop_ends_within_seconds_when_the_script_that_started_it_is_killed(tmp_path):
    """`make run`'s script killed outright (SIGKILL: no trap of its own runs) leaves no loop
    running: given the script's pid as scripts/run.sh gives it, the loop ends by itself."""
    log = tmp_path / "repeat.log"
    # The script starts the loop, says its pid, then waits on its input (no child of its own).
    script = (
        f"{shlex.quote(sys.executable)} manage.py repeat send_webhooks=1 --parent $$"
        f" >{shlex.quote(str(log))} 2>&1 & echo $!; read -r"
    )
    with subprocess.Popen(
        ["bash", "-c", script],
        cwd=settings.BASE_DIR,
        env=embedded_default_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as parent:
        loop = int(parent.stdout.readline())
        try:
            wait_for(lambda: threads(loop) > 1, timeout=60)  # its passes are under way
            parent.kill()
            parent.wait()
            wait_for(lambda: not running(loop), timeout=20)  # about 1 s; more on a busy machine
        finally:
            if running(loop):
                os.kill(loop, signal.SIGKILL)
    assert "Traceback" not in log.read_text()


def test_the_parent_is_watched_until_it_ends():
    stop = threading.Event()
    stop_when_parent_ends(os.getppid(), stop)
    assert not stop.wait(1.5)  # the parent lives: the loops go on, past the first look
    stop.set()  # ends the watching thread

    gone = threading.Event()
    stop_when_parent_ends(os.getpid(), gone)  # not this process's parent: ended already
    assert gone.wait(5)


def running(pid: int) -> bool:
    """Whether process `pid` runs: one that has exited and waits to be reaped does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def threads(pid: int) -> int:
    """How many threads process `pid` has (none once it has exited)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except FileNotFoundError:
        return 0
