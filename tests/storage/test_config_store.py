"""The config store writes Kafka Connect's config records and rebuilds the cluster configuration from them."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import conveyor
from conveyor.log import Log, open_log
from conveyor.storage import (
    PAUSED,
    STARTED,
    STOPPED,
    ConfigStore,
    ConfigUpdateListener,
    PrivilegedWriteError,
    RestartRequest,
    StorageError,
    TargetState,
)

RawRecords = Callable[[str], list[tuple[bytes | None, bytes | None]]]
TOPIC = "connect-configs"


@pytest.fixture
def store(log: Log) -> Iterator[ConfigStore]:
    started = ConfigStore(log)
    started.start()
    yield started
    started.stop()


def write_raw(log: Log, *records: tuple[bytes, bytes | None]) -> None:
    """Write config records directly, as another (possibly interrupted) Kafka Connect worker would."""
    with log.producer() as producer:
        for key, value in records:
            producer.send(TOPIC, value, key=key)
        producer.flush()


class RecordingListener(ConfigUpdateListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def on_connector_config_update(self, connector: str) -> None:
        self.events.append(("update", connector))

    def on_connector_config_remove(self, connector: str) -> None:
        self.events.append(("remove", connector))

    def on_task_configs_committed(self, connector: str, tasks: list[int]) -> None:
        self.events.append(("tasks", (connector, tasks)))

    def on_target_state_change(self, connector: str) -> None:
        self.events.append(("target-state", connector))

    def on_restart_request(self, request: RestartRequest) -> None:
        self.events.append(("restart", request))


# The bytes on the topic


def test_start_creates_a_compacted_single_partition_topic(log: Log, store: ConfigStore) -> None:
    description = log.admin().describe_topics([TOPIC])[TOPIC]
    assert description.partitions == 1
    assert description.config["cleanup.policy"] == "compact"


def test_start_refuses_a_config_topic_with_several_partitions(log: Log) -> None:
    log.admin().create_topic("configs-3", partitions=3, config={"cleanup.policy": "compact"})
    with pytest.raises(StorageError, match="single partition"):
        ConfigStore(log, "configs-3").start()


def test_connector_config_is_a_properties_struct(store: ConfigStore, raw_records: RawRecords) -> None:
    store.put_connector_config("orders", {"connector.class": "FileSource", "tasks.max": "2"})
    assert raw_records(TOPIC) == [
        (b"connector-orders", b'{"properties":{"connector.class":"FileSource","tasks.max":"2"}}')
    ]


def test_task_configs_are_written_before_their_commit_record(
    store: ConfigStore, raw_records: RawRecords
) -> None:
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    assert raw_records(TOPIC) == [
        (b"task-orders-0", b'{"properties":{"file":"a"}}'),
        (b"task-orders-1", b'{"properties":{"file":"b"}}'),
        (b"commit-orders", b'{"tasks":2}'),
    ]


@pytest.mark.parametrize(
    ("state", "value"),
    [
        (STARTED, b'{"state":"STARTED","state.v2":"STARTED"}'),
        (PAUSED, b'{"state":"PAUSED","state.v2":"PAUSED"}'),
        (STOPPED, b'{"state":"PAUSED","state.v2":"STOPPED"}'),
    ],
)
def test_target_state_is_written_with_a_v1_fallback_for_old_workers(
    store: ConfigStore, raw_records: RawRecords, state: TargetState, value: bytes
) -> None:
    store.put_target_state("orders", state)
    assert raw_records(TOPIC) == [(b"target-state-orders", value)]


def test_unknown_target_state_is_refused(store: ConfigStore) -> None:
    with pytest.raises(ValueError, match="RUNNING"):
        store.put_target_state("orders", "RUNNING")  # type: ignore[arg-type]


def test_task_count_record_is_keyed_tasks_fencing(store: ConfigStore, raw_records: RawRecords) -> None:
    store.put_task_count_record("orders", 3)
    assert raw_records(TOPIC) == [(b"tasks-fencing-orders", b'{"task-count":3}')]


def test_restart_request_record(store: ConfigStore, raw_records: RawRecords) -> None:
    store.put_restart_request("orders", include_tasks=True, only_failed=False)
    assert raw_records(TOPIC) == [
        (b"restart-connector-orders", b'{"include-tasks":true,"only-failed":false}')
    ]


def test_initial_target_state_is_written_before_the_connector_config(
    store: ConfigStore, raw_records: RawRecords
) -> None:
    store.put_connector_config("orders", {"a": "b"}, target_state=STOPPED)
    assert [key for key, _ in raw_records(TOPIC)] == [b"target-state-orders", b"connector-orders"]


def test_removing_a_connector_tombstones_its_config_and_target_state(
    store: ConfigStore, raw_records: RawRecords
) -> None:
    store.put_connector_config("orders", {"a": "b"})
    store.remove_connector_config("orders")
    assert raw_records(TOPIC)[1:] == [(b"connector-orders", None), (b"target-state-orders", None)]


def test_non_ascii_properties_are_written_as_utf8(store: ConfigStore, raw_records: RawRecords) -> None:
    store.put_connector_config("orders", {"name": "café"})
    assert raw_records(TOPIC) == [(b"connector-orders", '{"properties":{"name":"café"}}'.encode())]


# What a snapshot shows


def test_connector_config_round_trips(store: ConfigStore) -> None:
    store.put_connector_config("orders", {"connector.class": "FileSource"})
    snapshot = store.snapshot()
    assert snapshot.connectors() == ["orders"]
    assert snapshot.contains("orders")
    assert snapshot.connector_config("orders") == {"connector.class": "FileSource"}


def test_snapshot_offset_is_the_position_after_the_last_record(store: ConfigStore) -> None:
    assert store.snapshot().offset == -1
    store.put_connector_config("orders", {"a": "b"})
    store.put_task_configs("orders", [{"t": "0"}])
    assert store.snapshot().offset == 3


def test_snapshot_does_not_change_after_later_writes(store: ConfigStore) -> None:
    store.put_connector_config("orders", {"a": "b"})
    before = store.snapshot()
    store.put_connector_config("orders", {"a": "c"})
    assert before.connector_config("orders") == {"a": "b"}


def test_target_state_defaults_to_started(store: ConfigStore) -> None:
    store.put_connector_config("orders", {"a": "b"})
    assert store.snapshot().target_state("orders") == STARTED


@pytest.mark.parametrize("state", [STARTED, PAUSED, STOPPED])
def test_target_state_round_trips(store: ConfigStore, state: TargetState) -> None:
    store.put_connector_config("orders", {"a": "b"})
    store.put_target_state("orders", state)
    assert store.snapshot().target_state("orders") == state


def test_target_state_of_an_old_worker_is_read_from_the_v1_field(log: Log, store: ConfigStore) -> None:
    write_raw(
        log, (b"connector-orders", b'{"properties":{}}'), (b"target-state-orders", b'{"state":"PAUSED"}')
    )
    store.read_to_end()
    assert store.snapshot().target_state("orders") == PAUSED


def test_task_configs_round_trip_in_task_order(store: ConfigStore) -> None:
    store.put_connector_config("orders", {"a": "b"})
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    snapshot = store.snapshot()
    assert snapshot.task_count("orders") == 2
    assert snapshot.task_configs("orders") == [{"file": "a"}, {"file": "b"}]
    assert snapshot.task_config("orders", 1) == {"file": "b"}


def test_task_configs_are_invisible_until_their_commit_record(log: Log, store: ConfigStore) -> None:
    write_raw(log, (b"task-orders-0", b'{"properties":{"file":"a"}}'))
    store.read_to_end()
    assert store.snapshot().task_configs("orders") == []
    assert store.snapshot().task_count("orders") == 0

    write_raw(log, (b"commit-orders", b'{"tasks":1}'))
    store.read_to_end()
    assert store.snapshot().task_configs("orders") == [{"file": "a"}]


def test_uncommitted_task_configs_do_not_replace_committed_ones(log: Log, store: ConfigStore) -> None:
    store.put_task_configs("orders", [{"file": "a"}])
    write_raw(log, (b"task-orders-0", b'{"properties":{"file":"new"}}'))
    store.read_to_end()
    assert store.snapshot().task_configs("orders") == [{"file": "a"}]


def test_task_config_generation_starts_at_zero_and_grows_with_each_commit(store: ConfigStore) -> None:
    assert store.snapshot().task_config_generation("orders") is None
    store.put_task_configs("orders", [{"file": "a"}])
    assert store.snapshot().task_config_generation("orders") == 0
    store.put_task_configs("orders", [{"file": "b"}])
    assert store.snapshot().task_config_generation("orders") == 1


def test_incomplete_task_set_makes_the_connector_inconsistent(log: Log, store: ConfigStore) -> None:
    write_raw(log, (b"task-orders-1", b'{"properties":{"file":"b"}}'), (b"commit-orders", b'{"tasks":2}'))
    store.read_to_end()
    snapshot = store.snapshot()
    assert snapshot.inconsistent() == {"orders"}
    assert snapshot.task_configs("orders") == []
    assert snapshot.task_count("orders") == 2


def test_a_complete_task_set_resolves_an_inconsistency(log: Log, store: ConfigStore) -> None:
    write_raw(log, (b"task-orders-1", b'{"properties":{"file":"b"}}'), (b"commit-orders", b'{"tasks":2}'))
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    snapshot = store.snapshot()
    assert snapshot.inconsistent() == frozenset()
    assert snapshot.task_configs("orders") == [{"file": "a"}, {"file": "b"}]


def test_removed_connector_loses_its_config_tasks_and_target_state(store: ConfigStore) -> None:
    store.put_connector_config("orders", {"a": "b"}, target_state=PAUSED)
    store.put_task_configs("orders", [{"file": "a"}])
    store.remove_connector_config("orders")
    snapshot = store.snapshot()
    assert not snapshot.contains("orders")
    assert snapshot.connector_config("orders") is None
    assert snapshot.task_configs("orders") == []
    assert snapshot.target_state("orders") == STARTED


# Zombie fencing bookkeeping (KIP-618)


def test_committed_task_configs_are_pending_fencing(store: ConfigStore) -> None:
    store.put_task_configs("orders", [{"file": "a"}])
    assert store.snapshot().pending_fencing("orders")
    assert store.snapshot().task_count_record("orders") is None


def test_a_task_count_record_ends_pending_fencing(store: ConfigStore) -> None:
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    store.put_task_count_record("orders", 2)
    snapshot = store.snapshot()
    assert not snapshot.pending_fencing("orders")
    assert snapshot.task_count_record("orders") == 2


def test_task_configs_after_the_task_count_record_are_pending_fencing_again(store: ConfigStore) -> None:
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    store.put_task_count_record("orders", 2)
    store.put_task_configs("orders", [{"file": "a"}])
    snapshot = store.snapshot()
    assert snapshot.pending_fencing("orders")
    assert snapshot.task_count_record("orders") == 2
    assert snapshot.task_count("orders") == 1


# Listeners


def test_records_read_at_start_fire_no_listener(log: Log, store: ConfigStore) -> None:
    store.put_connector_config("orders", {"a": "b"})
    other = ConfigStore(log)
    listener = RecordingListener()
    other.add_listener(listener)
    other.start()
    assert listener.events == []


def test_listeners_hear_config_updates_commits_and_removals(store: ConfigStore) -> None:
    listener = RecordingListener()
    store.add_listener(listener)
    store.put_connector_config("orders", {"a": "b"})
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    store.remove_connector_config("orders")
    assert listener.events == [("update", "orders"), ("tasks", ("orders", [0, 1])), ("remove", "orders")]


def test_listeners_hear_target_state_changes_of_configured_connectors_only(store: ConfigStore) -> None:
    listener = RecordingListener()
    store.add_listener(listener)
    store.put_target_state("unknown", PAUSED)
    store.put_connector_config("orders", {"a": "b"})
    store.put_target_state("orders", STOPPED)
    store.put_target_state("orders", STOPPED)
    assert listener.events == [("update", "orders"), ("target-state", "orders")]


def test_restart_requests_reach_listeners(store: ConfigStore) -> None:
    listener = RecordingListener()
    store.add_listener(listener)
    store.put_restart_request("orders", include_tasks=True, only_failed=True)
    assert listener.events == [("restart", RestartRequest("orders", include_tasks=True, only_failed=True))]


def test_restart_request_fields_default_to_false(log: Log, store: ConfigStore) -> None:
    listener = RecordingListener()
    store.add_listener(listener)
    write_raw(log, (b"restart-connector-orders", b"{}"))
    store.read_to_end()
    assert listener.events == [("restart", RestartRequest("orders", include_tasks=False, only_failed=False))]


def test_a_failing_listener_does_not_stop_the_others(store: ConfigStore) -> None:
    class Failing(ConfigUpdateListener):
        def on_connector_config_update(self, connector: str) -> None:
            raise RuntimeError("boom")

    listener = RecordingListener()
    store.add_listener(Failing())
    store.add_listener(listener)
    store.put_connector_config("orders", {"a": "b"})
    assert listener.events == [("update", "orders")]
    assert store.snapshot().contains("orders")


# Several workers


def test_a_second_worker_sees_the_first_ones_writes_after_reading_to_the_end(
    log_url: str, store: ConfigStore
) -> None:
    with open_log(log_url) as second_log:
        second = ConfigStore(second_log)
        second.start()
        store.put_connector_config("orders", {"a": "b"}, target_state=PAUSED)
        store.put_task_configs("orders", [{"file": "a"}])
        assert not second.snapshot().contains("orders")
        second.read_to_end()
        snapshot = second.snapshot()
        second.stop()
    assert snapshot.connector_config("orders") == {"a": "b"}
    assert snapshot.target_state("orders") == PAUSED
    assert snapshot.task_configs("orders") == [{"file": "a"}]


SECOND_PROCESS_WRITER = """
import sys
from conveyor.log import open_log
from conveyor.storage import ConfigStore, STOPPED
with open_log(sys.argv[1]) as log:
    store = ConfigStore(log)
    store.start()
    store.put_connector_config("orders", {"connector.class": "FileSource"}, target_state=STOPPED)
    store.put_task_configs("orders", [{"file": "a"}, {"file": "b"}])
    store.put_task_count_record("orders", 2)
    store.stop()
"""


def test_a_worker_in_another_process_sees_the_same_configuration(log_url: str, store: ConfigStore) -> None:
    source_root = str(Path(conveyor.__file__).parent.parent)
    subprocess.run(
        [sys.executable, "-c", SECOND_PROCESS_WRITER, log_url],
        check=True,
        timeout=60,
        env={"PYTHONPATH": source_root},
    )
    store.read_to_end()
    snapshot = store.snapshot()
    assert snapshot.connector_config("orders") == {"connector.class": "FileSource"}
    assert snapshot.target_state("orders") == STOPPED
    assert snapshot.task_configs("orders") == [{"file": "a"}, {"file": "b"}]
    assert snapshot.task_count_record("orders") == 2
    assert not snapshot.pending_fencing("orders")


# The transactional leader (KIP-618)

LEADER_ID = "connect-cluster-workers"


def leader_store(log: Log) -> ConfigStore:
    store = ConfigStore(log, transactional_id=LEADER_ID)
    store.start()
    store.claim_write_privileges()
    return store


def test_a_transactional_leader_writes_are_read_back(log: Log) -> None:
    leader = leader_store(log)
    leader.put_connector_config("orders", {"a": "b"})
    leader.put_task_configs("orders", [{"file": "a"}])
    leader.put_task_count_record("orders", 1)
    snapshot = leader.snapshot()
    assert snapshot.task_configs("orders") == [{"file": "a"}]
    assert snapshot.task_count_record("orders") == 1


def test_a_transactional_store_needs_write_privileges_before_writing(log: Log) -> None:
    store = ConfigStore(log, transactional_id=LEADER_ID)
    store.start()
    with pytest.raises(StorageError, match="claiming write privileges"):
        store.put_connector_config("orders", {"a": "b"})


def test_a_fenced_leader_gets_a_privileged_write_error(log: Log, log_url: str) -> None:
    old_leader = leader_store(log)
    with open_log(log_url) as second_log:
        new_leader = leader_store(second_log)
        with pytest.raises(PrivilegedWriteError, match="lost its write privileges"):
            old_leader.put_connector_config("orders", {"from": "zombie"})
        new_leader.put_connector_config("orders", {"from": "leader"})
        new_leader.stop()
    old_leader.read_to_end()
    assert old_leader.snapshot().connector_config("orders") == {"from": "leader"}


def test_a_fenced_leader_must_claim_privileges_again(log: Log, log_url: str) -> None:
    old_leader = leader_store(log)
    with open_log(log_url) as second_log:
        leader_store(second_log).stop()
    with pytest.raises(PrivilegedWriteError):
        old_leader.put_task_count_record("orders", 1)
    with pytest.raises(StorageError, match="claiming write privileges"):
        old_leader.put_task_count_record("orders", 1)
    old_leader.claim_write_privileges()
    old_leader.put_task_count_record("orders", 1)
    assert old_leader.snapshot().task_count_record("orders") == 1


def test_target_states_need_no_write_privileges(log: Log) -> None:
    follower = ConfigStore(log, transactional_id=LEADER_ID)
    follower.start()
    follower.put_target_state("orders", PAUSED)
    assert follower.snapshot().target_states == {"orders": PAUSED}
