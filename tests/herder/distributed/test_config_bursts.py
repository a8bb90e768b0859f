"""A burst of config changes queued for the leader's work thread is written in one go, as Kafka's herder
writes connector configs and deletions without waiting for the rebalance an earlier one of them calls for."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.herder.distributed.cluster import Member, group
from tests.waiting import wait_until

from conveyor.herder.distributed.herder import DistributedHerder

BURST = 5
Call = Callable[..., Future[Any]]


def quiet_generator() -> dict[str, str]:
    return {"connector.class": "GeneratorSourceConnector", "topic": "burst", "tasks.max": "1", "rate": "0.2"}


@contextmanager
def work_thread_held(herder: DistributedHerder, queued: int) -> Iterator[Call]:
    """Hold the herder's work thread in a request until `queued` more requests wait behind it, so that they
    all run in one tick; yields how to call into the herder meanwhile."""
    gate = threading.Event()
    herder._requests.add(lambda: gate.wait(60), description="held by the test")
    herder.wakeup()
    with ThreadPoolExecutor(queued) as pool:
        try:
            yield pool.submit
            wait_until(lambda: len(herder._requests) >= queued, f"{queued} requests queued")
        finally:
            gate.set()


def test_connector_configs_queued_together_are_all_written(tmp_path: Path) -> None:
    with group(tmp_path, 1) as [leader]:
        herder = leader.herder
        names = [f"burst-{index}" for index in range(BURST)]
        with work_thread_held(herder, BURST) as call:
            writes = [call(herder.put_connector_config, name, quiet_generator(), False) for name in names]
        created = [write.result(60)[0] for write in writes]
        assert created == [True] * BURST
        assert sorted(herder.configs.snapshot().connectors()) == names


def test_deletions_queued_together_are_all_written(tmp_path: Path) -> None:
    with group(tmp_path, 1) as [leader]:
        herder = leader.herder
        names = [f"burst-{index}" for index in range(BURST)]
        for name in names:
            assert leader.http("PUT", f"/connectors/{name}/config", quiet_generator()).status_code == 201
        wait_until(lambda: leader_lists(leader) == names, "the leader to list every connector")
        with work_thread_held(herder, BURST) as call:
            deletions = [call(herder.delete_connector, name) for name in names]
        for deletion in deletions:
            deletion.result(60)
        assert herder.configs.snapshot().connectors() == []


def leader_lists(leader: Member) -> list[str]:
    response = leader.http("GET", "/connectors")
    return sorted(response.json()) if response.status_code == 200 else []


def test_a_followers_task_configs_for_many_connectors_reach_the_leader_together(tmp_path: Path) -> None:
    """Each waits for the leader's work thread on its own, so they are written in one tick and call for one
    rebalance, instead of being sent one after the other, a rebalance each."""
    with group(tmp_path, 2) as members:
        leader = next(m for m in members if m.herder.is_leader()).herder
        follower = next(m for m in members if not m.herder.is_leader()).herder
        names = [f"burst-{index}" for index in range(BURST)]
        for name in names:
            leader.put_connector_config(name, quiet_generator(), False, initial_state="PAUSED")
        wait_until(
            lambda: all(follower.configs.snapshot().contains(name) for name in names),
            "the follower to read every connector",
        )
        task_configs = [{"topic": "burst"}]
        with work_thread_held(leader, BURST) as call:
            for name in names:
                config = follower.configs.snapshot().connector_config(name) or {}
                call(follower._write_task_configs, name, config, task_configs, lambda error: None)
        wait_until(
            lambda: all(leader.configs.snapshot().task_configs(name) == task_configs for name in names),
            "every connector's task configs written",
        )
