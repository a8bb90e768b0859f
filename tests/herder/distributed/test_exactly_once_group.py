"""KIP-618 across a group: the transactional leader, fencing before tasks start, and zombies refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.herder.distributed.cluster import Member, group, leader_of, settled
from tests.herder.distributed.test_rebalance_protocols import tasks_running
from tests.waiting import wait_until

from conveyor.log import Log, ProducerFencedError, open_log
from conveyor.runtime.task_generation import StaleTaskGenerationError, config_reader, verify_task_generation
from conveyor.runtime.task_spec import TaskId
from conveyor.storage import ConfigStore
from conveyor.storage.errors import PrivilegedWriteError

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
ENABLED = {"exactly.once.source.support": "enabled"}


def generator(tasks: int) -> dict[str, str]:
    return {"connector.class": GENERATOR, "topic": "eos", "tasks.max": str(tasks), "rate": "50"}


def create(members: list[Member], tasks: int) -> None:
    response = members[-1].http("PUT", "/connectors/gen/config", generator(tasks))
    assert response.status_code in (200, 201), response.text
    wait_until(lambda: tasks_running(members, count=tasks), f"{tasks} tasks running")


def test_source_tasks_start_only_after_the_leader_records_their_task_count(tmp_path: Path) -> None:
    with group(tmp_path, 2, **ENABLED) as members:
        create(members, 3)
        snapshot = leader_of(members).herder.configs.snapshot()
        assert snapshot.task_count_record("gen") == 3
        assert not snapshot.pending_fencing("gen")


def test_new_task_configs_fence_the_producers_of_every_task_of_the_previous_generation(
    tmp_path: Path,
) -> None:
    with group(tmp_path, 2, **ENABLED) as members:
        create(members, 3)
        with open_log(members[0].herder.config.log_url) as log:
            zombie = zombie_task_producer(log, "test-group-gen-2")
            create(members, 1)
            wait_until(
                lambda: leader_of(members).herder.configs.snapshot().task_count_record("gen") == 1, "count 1"
            )
            with pytest.raises(ProducerFencedError):
                zombie.send("eos", b"late", b"zombie")
                zombie.commit_transaction()
            zombie.close()


def zombie_task_producer(log: Log, transactional_id: str):  # type: ignore[no-untyped-def]
    """A producer with a task's transactional id, as a task left running on a lost worker holds."""
    producer = log.producer(transactional_id=transactional_id)
    producer.init_transactions()
    producer.begin_transaction()
    return producer


def test_a_leader_fenced_by_a_newer_one_fails_its_write_then_claims_the_topic_back(tmp_path: Path) -> None:
    with group(tmp_path, 2, **{"exactly.once.source.support": "preparing"}) as members:
        leader = leader_of(members)
        assert leader.http("PUT", "/connectors/a/config", generator(1)).status_code == 201
        wait_until(lambda: tasks_running(members, "a", 1), "connector a running, no write pending")
        leader = leader_of(members)
        usurper = ConfigStore(leader.log, "connect-configs", transactional_id="connect-cluster-test-group")
        usurper.start()
        usurper.claim_write_privileges()
        refused = leader.http("PUT", "/connectors/b/config", generator(1))
        assert refused.status_code == 500
        assert "Failed to write to config topic" in refused.json()["message"]
        usurper.stop()
        wait_until(
            lambda: (
                leader_of(members).http("PUT", "/connectors/b/config", generator(1)).status_code in (200, 201)
            ),
            "a write accepted after the leader claimed the config topic again",
        )


def test_under_preparing_the_leader_writes_no_task_count_records(tmp_path: Path) -> None:
    with group(tmp_path, 2, **{"exactly.once.source.support": "preparing"}) as members:
        create(members, 2)
        assert leader_of(members).herder.configs.snapshot().task_count_record("gen") is None


def test_a_task_whose_connector_has_newer_task_configs_refuses_to_start(tmp_path: Path) -> None:
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        store = ConfigStore(log, "configs")
        store.start()
        store.put_connector_config("c", {"connector.class": GENERATOR, "topic": "t"})
        store.put_task_configs("c", [{"k": "1"}])
        assigned_at = store.snapshot().task_config_generation("c")
        assert assigned_at is not None
        reader = config_reader(log, "configs")
        try:
            verify_task_generation(reader, TaskId("c", 0), assigned_at)
            store.put_task_configs("c", [{"k": "2"}])
            store.stop()
            with pytest.raises(StaleTaskGenerationError, match="already generated a new set of task configs"):
                verify_task_generation(reader, TaskId("c", 0), assigned_at)
        finally:
            reader.stop()


PREPARING_WITHOUT_SESSION_KEYS = {
    "exactly.once.source.support": "preparing",
    "connect.protocol": "compatible",
}


def test_a_worker_elected_leader_fences_the_previous_leaders_writer_before_writing_anything(
    tmp_path: Path,
) -> None:
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        previous_leader = ConfigStore(log, "connect-configs", transactional_id="connect-cluster-test-group")
        previous_leader.start()
        previous_leader.claim_write_privileges()
    with group(tmp_path, 1, **PREPARING_WITHOUT_SESSION_KEYS) as members:
        assert leader_of(members).herder.configs.has_write_privileges
        with pytest.raises(PrivilegedWriteError, match="fenced by a newer leader"):
            previous_leader.put_connector_config("late", generator(1))
    previous_leader.stop()


def test_a_worker_that_stops_being_leader_gives_up_its_transactional_config_writer(tmp_path: Path) -> None:
    with group(tmp_path, 2, **PREPARING_WITHOUT_SESSION_KEYS) as members:
        old_leader = leader_of(members)
        generation = old_leader.herder.generation
        old_leader.herder._member.leave()
        wait_until(
            lambda: settled(members) and old_leader.herder.generation > generation, "a rebalance settled"
        )
        assert not old_leader.herder.is_leader()
        assert not old_leader.herder.configs.has_write_privileges
        assert leader_of(members).herder.configs.has_write_privileges
