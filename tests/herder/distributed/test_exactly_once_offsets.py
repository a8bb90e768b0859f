"""KIP-875 under KIP-618: altering or resetting a stopped exactly-once source's offsets first fences its
zombie tasks, then writes the offsets in one transaction as its task 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.herder.distributed.cluster import Member, group, leader_of
from tests.herder.distributed.test_exactly_once_group import zombie_task_producer
from tests.herder.distributed.test_rebalance_protocols import tasks_running
from tests.waiting import wait_until

from conveyor.log import ProducerFencedError

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
ENABLED = {"exactly.once.source.support": "enabled"}
TASKS = 2


def stopped_generator(members: list[Member]) -> Member:
    """A generator source whose tasks ran and were stopped; its leader."""
    config = {"connector.class": GENERATOR, "topic": "eos", "tasks.max": str(TASKS), "rate": "20"}
    assert members[0].http("PUT", "/connectors/gen/config", config).status_code == 201
    wait_until(lambda: tasks_running(members, "gen", TASKS), "the tasks running")
    assert members[0].http("PUT", "/connectors/gen/stop").status_code == 204
    leader = leader_of(members)
    wait_until(
        lambda: leader.http("GET", "/connectors/gen/status").json()["connector"]["state"] == "STOPPED",
        "the connector stopped",
    )
    return leader


def offsets_of(member: Member) -> list[dict[str, Any]]:
    offsets: list[dict[str, Any]] = member.http("GET", "/connectors/gen/offsets").json()["offsets"]
    return offsets


def test_altering_a_stopped_exactly_once_sources_offsets_fences_its_zombie_tasks(tmp_path: Path) -> None:
    with group(tmp_path, 1, **ENABLED) as members:
        leader = stopped_generator(members)
        zombie = zombie_task_producer(leader.log, f"test-group-gen-{TASKS - 1}")
        altered = [{"partition": {"task": 0}, "offset": {"seqno": 5}}]
        response = leader.http("PATCH", "/connectors/gen/offsets", {"offsets": altered})
        assert response.status_code == 200, response.text
        with pytest.raises(ProducerFencedError):
            zombie.send("eos", b"late", b"zombie")
            zombie.commit_transaction()
        zombie.close()
        assert {"partition": {"task": 0}, "offset": {"seqno": 5}} in offsets_of(leader)


def test_resetting_a_stopped_exactly_once_sources_offsets_writes_them_as_its_task_0(tmp_path: Path) -> None:
    with group(tmp_path, 1, **ENABLED) as members:
        leader = stopped_generator(members)
        altered = [{"partition": {"task": 0}, "offset": {"seqno": 5}}]
        assert leader.http("PATCH", "/connectors/gen/offsets", {"offsets": altered}).status_code == 200
        late_zombie = zombie_task_producer(leader.log, "test-group-gen-0")
        response = leader.http("DELETE", "/connectors/gen/offsets")
        assert response.status_code == 200, response.text
        with pytest.raises(ProducerFencedError):
            late_zombie.send("eos", b"late", b"zombie")
            late_zombie.commit_transaction()
        late_zombie.close()
        assert offsets_of(leader) == []
