"""SIGTERM ends every worker of a group while connector code blocks in `stop()` and in a task's `poll()`.

A module of its own, so that its group never runs beside another test module's group.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

from tests.blocking import Blocker
from tests.conveyor_process import EXIT_S
from tests.waiting import wait_until

from .stuck_group import OVERRIDES, create
from .worker_group import worker_group


def test_sigterm_ends_every_worker_while_connector_code_blocks(
    tmp_path: Path, blockers: Callable[[str], Blocker]
) -> None:
    with worker_group(tmp_path, 2, **OVERRIDES) as stopping:
        stop, poll = blockers("stop"), blockers("poll")
        create(stopping, "stuck-stop", stop.config())
        create(stopping, "stuck-poll", poll.config())
        wait_until(poll.blocked, "poll() to block", 120.0)
        for worker in stopping.workers:
            worker.process.send_signal(signal.SIGTERM)
        for worker in stopping.workers:
            assert worker.process.wait(EXIT_S) == 0, worker.tail()
        assert stop.blocked()
