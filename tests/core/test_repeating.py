"""The embedded default's background work: `manage.py repeat` runs several repeating commands
in one process, each on its own period, and a pass that fails stops none of them."""

import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.actors import Actor, Via
from core.repeating import RepeatingCommand, repeating_command, run_together
from tests.factories import TrailFactory
from tests.integration.conftest import wait_for
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
