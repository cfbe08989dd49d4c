"""The embedded default's background work: `manage.py repeat` runs several repeating commands
in one process, each on its own period, and a pass that fails stops none of them."""

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from core.actors import Actor, Via
from core.repeating import (
    RepeatingCommand,
    repeating_command,
    run_together,
    stop_when_parent_ends,
)
from grooming.models import GroomingSession
from schedules.models import ScheduleRun
from schedules.services import create_schedule
from tests.factories import TrailFactory
from tests.grooming.replay import IDLE, send_osmand_query
from tests.integration.conftest import embedded_default_environment, wait_for
from trails import services as trail_services
from trails.models import Trail, TrailSystem
from trails.timezones import zone_of
from webapp.management.commands.repeat import EMBEDDED_DEFAULT_PASSES
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


def test_make_run_starts_repeat_without_arguments_and_every_listed_pass_repeats():
    script = (settings.BASE_DIR / "scripts" / "run.sh").read_text()
    (line,) = [line for line in script.splitlines() if "manage.py repeat" in line]
    assert line.split("manage.py repeat")[1].split() == ["--parent", "$$", "&"]
    for name, every in EMBEDDED_DEFAULT_PASSES:
        assert repeating_command(name) and every > 0


def test_repeat_alone_sends_webhooks_applies_schedules_and_ends_grooming_sessions(
    system, manager, client, receiver, tmp_path, request
):
    """`manage.py repeat` with no argument, as `make run` starts it beside the server (here the
    test's): a scheduled closure is applied, an idle grooming session ended, and the webhooks
    of both sent."""
    target = receiver()
    webhook_services.create_endpoint(
        system=system,
        url=target.url,
        events=["trail.status_changed", "grooming.ended"],
        actor=ACTOR,
    )
    trail = TrailFactory(trail_system=system, status="Open")
    due = (timezone.now() + timedelta(seconds=2)).replace(microsecond=0)
    create_schedule(
        system=system,
        trail_ids=[trail.pk],
        status="Closed",
        repeat="once",
        starts_at=due.astimezone(zone_of(system)).replace(tzinfo=None),
        actor=ACTOR,
    )
    TrailSystem.objects.filter(pk=system.pk).update(lat=45.69, lng=-113.95)
    tracker = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trackers", {"name": "PistenBully"}, "json"
    ).json()
    position = (-113.95, 45.69, timezone.now())
    assert send_osmand_query(client, tracker["secret"], position).status_code == 200
    # Its last position came 16 minutes ago, as if the machine had stopped then.
    assert GroomingSession.objects.filter(ended_on=None).update(
        last_received_on=timezone.now() - IDLE
    )

    request.getfixturevalue("background_loop")  # started now, with everything in place
    sent = target.wait_for(2, timeout=60)  # each pass within 15 s, sent within 1 s more
    events = {json.loads(webhook.body)["type"]: json.loads(webhook.body) for webhook in sent}
    assert events["trail.status_changed"]["data"]["trailId"] == trail.pk
    assert events["grooming.ended"]["data"]["trackerId"] == tracker["id"]
    assert Trail.objects.get(pk=trail.pk).status == "Closed"
    assert ScheduleRun.objects.filter(schedule__trail_system=system).count() == 1
    # Near no trail, the ended session leaves no pass (its session goes with it).
    assert not GroomingSession.objects.filter(ended_on=None).exists()
    assert "Traceback" not in (tmp_path / "repeat.log").read_text()


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
