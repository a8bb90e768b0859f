"""Under the eager protocol a killed worker's tasks move at the very next rebalance, with no delay."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.distributed.test_worker_group_chaos import TASKS, WAIT_S, assert_every_record_once, start_generator
from tests.distributed.worker_group import worker_group

pytestmark = pytest.mark.timeout(900)


def test_the_tasks_of_a_killed_worker_move_at_once_under_the_eager_protocol(tmp_path: Path) -> None:
    settings = {
        "connect.protocol": "eager",
        "scheduled.rebalance.max.delay.ms": "600000",
        "exactly.once.source.support": "enabled",
    }
    with worker_group(tmp_path, 2, **settings) as group:
        start_generator(group, "eager")
        status = group.status("eager")
        victim = next(w for w in group.live() if any(t["worker_id"] == w.worker_id for t in status["tasks"]))
        victim.kill()
        group.remove(victim)
        group.wait_for_tasks_running("eager", TASKS, "tasks moved", WAIT_S)
        assert_every_record_once(group, "eager")
