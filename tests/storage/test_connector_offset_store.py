"""A connector's own offsets topic is primary; the worker's global topic is the fallback (KIP-618)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conveyor.log import Log, open_log
from conveyor.storage import ConnectorOffsetStore, OffsetStore, StoreOffsetStorageReader

RawRecords = Callable[[str], list[tuple[bytes | None, bytes | None]]]
X = {"file": "x"}


@pytest.fixture
def worker_store(log: Log) -> Iterator[OffsetStore]:
    store = OffsetStore(log, "connect-offsets")
    store.start()
    yield store
    store.stop()


@pytest.fixture
def connector_store(log: Log) -> Iterator[OffsetStore]:
    store = OffsetStore(log, "files-offsets", partitions=3)
    store.start()
    yield store
    store.stop()


@pytest.fixture
def combined(connector_store: OffsetStore, worker_store: OffsetStore) -> ConnectorOffsetStore:
    return ConnectorOffsetStore(connector_store, worker_store)


def test_the_connector_store_wins_over_the_worker_store(
    combined: ConnectorOffsetStore, connector_store: OffsetStore, worker_store: OffsetStore
) -> None:
    worker_store.put("files", [(X, {"position": 1})])
    connector_store.put("files", [(X, {"position": 2})])
    combined.read_to_end()
    assert combined.get("files", X) == {"position": 2}


def test_offsets_only_in_the_worker_store_are_found(
    combined: ConnectorOffsetStore, worker_store: OffsetStore
) -> None:
    worker_store.put("files", [(X, {"position": 1})])
    combined.read_to_end()
    assert combined.get("files", X) == {"position": 1}


def test_offsets_merge_both_stores(
    combined: ConnectorOffsetStore, connector_store: OffsetStore, worker_store: OffsetStore
) -> None:
    worker_store.put("files", [(X, {"position": 1}), ({"file": "y"}, {"position": 1})])
    connector_store.put("files", [(X, {"position": 2})])
    combined.read_to_end()
    assert {key: entry.offset for key, entry in combined.offsets("files").items()} == {
        '{"file":"x"}': {"position": 2},
        '{"file":"y"}': {"position": 1},
    }


def test_writes_go_to_the_connector_store_and_are_copied_to_the_worker_store(
    combined: ConnectorOffsetStore, connector_store: OffsetStore, worker_store: OffsetStore
) -> None:
    combined.write("files", [(X, {"position": 3})])
    combined.read_to_end()
    assert connector_store.get("files", X) == {"position": 3}
    assert worker_store.get("files", X) == {"position": 3}


def test_a_reset_is_written_to_both_stores_worker_store_first(
    combined: ConnectorOffsetStore, raw_records: RawRecords
) -> None:
    combined.write("files", [(X, {"position": 3})])
    combined.write("files", [(X, None)])
    combined.read_to_end()
    assert combined.get("files", X) is None
    assert raw_records("connect-offsets")[-1] == (b'["files",{"file":"x"}]', None)
    assert raw_records("files-offsets")[-1] == (b'["files",{"file":"x"}]', None)


def test_a_transactional_write_reaches_the_connector_store_on_commit(
    log: Log, combined: ConnectorOffsetStore, connector_store: OffsetStore
) -> None:
    producer = log.producer(transactional_id="workers-files-0")
    producer.init_transactions()
    producer.begin_transaction()
    combined.write("files", [(X, {"position": 4})], producer=producer)
    connector_store.read_to_end()
    assert connector_store.get("files", X) is None
    producer.commit_transaction()
    connector_store.read_to_end()
    assert connector_store.get("files", X) == {"position": 4}


def test_the_same_topic_for_both_is_used_once(
    log: Log, worker_store: OffsetStore, raw_records: RawRecords
) -> None:
    same_topic = OffsetStore(log, "connect-offsets")
    same_topic.start()
    ConnectorOffsetStore(same_topic, worker_store).write("files", [(X, {"position": 1})])
    assert len(raw_records("connect-offsets")) == 1


def test_a_topic_of_the_same_name_on_another_log_is_another_store(
    worker_store: OffsetStore, tmp_path: Path
) -> None:
    worker_store.put("files", [(X, {"position": 1})])
    with open_log(f"embedded:{tmp_path / 'producer-cluster'}") as other:
        same_name = OffsetStore(other, "connect-offsets")
        same_name.start()
        try:
            combined = ConnectorOffsetStore(same_name, worker_store)
            combined.read_to_end()
            assert combined.get("files", X) == {"position": 1}
        finally:
            same_name.stop()


def test_without_a_connector_store_the_worker_store_is_primary(
    worker_store: OffsetStore, raw_records: RawRecords
) -> None:
    only_worker = ConnectorOffsetStore(None, worker_store)
    only_worker.write("files", [(X, {"position": 1})])
    only_worker.read_to_end()
    assert only_worker.primary_offsets_topic == "connect-offsets"
    assert only_worker.get("files", X) == {"position": 1}


def test_at_least_one_store_is_required() -> None:
    with pytest.raises(ValueError, match="worker-global"):
        ConnectorOffsetStore(None, None)


def test_the_task_reader_reads_through_both_stores(
    combined: ConnectorOffsetStore, worker_store: OffsetStore
) -> None:
    worker_store.put("files", [(X, {"position": 1})])
    assert StoreOffsetStorageReader(combined, "files").offset(X) == {"position": 1}
