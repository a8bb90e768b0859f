"""The offset store keeps source offsets as Kafka Connect does: JSON keys, murmur2 partitions, resets."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from conveyor.log import ConsumerRecord, Log, open_log
from conveyor.log.murmur2 import partition_for_key
from conveyor.storage import OffsetStore, SourceOffset, StoreOffsetStorageReader, partition_key
from conveyor.storage.errors import StorageTimeoutError

TopicRecords = Callable[[str], list[ConsumerRecord]]
RawRecords = Callable[[str], list[tuple[bytes | None, bytes | None]]]
TOPIC = "connect-offsets"


@pytest.fixture
def store(log: Log) -> Iterator[OffsetStore]:
    started = OffsetStore(log)
    started.start()
    yield started
    started.stop()


def test_start_creates_a_compacted_topic_with_25_partitions(log: Log, store: OffsetStore) -> None:
    description = log.admin().describe_topics([TOPIC])[TOPIC]
    assert description.partitions == 25
    assert description.config["cleanup.policy"] == "compact"


def test_an_existing_topic_keeps_its_partition_count(log: Log, topic_records: TopicRecords) -> None:
    log.admin().create_topic("offsets-3", partitions=3, config={"cleanup.policy": "compact"})
    store = OffsetStore(log, "offsets-3")
    store.start()
    store.put("files", [({"file": "x"}, {"position": 1})])
    key = b'["files",{"file":"x"}]'
    assert topic_records("offsets-3")[0].partition == partition_for_key(key, 3)


def test_serialize_gives_kafka_connect_key_and_value_bytes(store: OffsetStore) -> None:
    assert store.serialize("files", {"file": "x"}, {"position": 5}) == (
        b'["files",{"file":"x"}]',
        b'{"position":5}',
    )


def test_serialize_of_a_reset_is_a_tombstone(store: OffsetStore) -> None:
    assert store.serialize("files", {"file": "x"}, None) == (b'["files",{"file":"x"}]', None)


def test_written_records_have_kafka_connect_bytes(store: OffsetStore, raw_records: RawRecords) -> None:
    store.put("files", [({"file": "x"}, {"position": 5, "done": False})])
    assert raw_records(TOPIC) == [(b'["files",{"file":"x"}]', b'{"position":5,"done":false}')]


def test_each_record_goes_to_the_murmur2_partition_of_its_key(
    store: OffsetStore, topic_records: TopicRecords
) -> None:
    store.put("files", [({"file": f"f{n}"}, {"position": n}) for n in range(20)])
    records = topic_records(TOPIC)
    assert len(records) == 20
    assert all(record.partition == partition_for_key(record.key or b"", 25) for record in records)
    assert len({record.partition for record in records}) > 1


def test_offsets_round_trip(store: OffsetStore) -> None:
    store.put("files", [({"file": "x"}, {"position": 5})])
    store.read_to_end()
    assert store.get("files", {"file": "x"}) == {"position": 5}


def test_unknown_partition_has_no_offset(store: OffsetStore) -> None:
    assert store.get("files", {"file": "nope"}) is None


def test_latest_offset_of_a_partition_wins(store: OffsetStore) -> None:
    store.put("files", [({"file": "x"}, {"position": 5})])
    store.put("files", [({"file": "x"}, {"position": 9})])
    store.read_to_end()
    assert store.get("files", {"file": "x"}) == {"position": 9}


def test_partitions_are_found_whatever_the_order_of_their_fields(store: OffsetStore) -> None:
    store.put("mirror", [({"topic": "t", "partition": 0}, {"offset": 7})])
    store.read_to_end()
    assert store.get("mirror", {"partition": 0, "topic": "t"}) == {"offset": 7}


def test_partition_key_is_the_json_with_sorted_keys() -> None:
    assert partition_key({"topic": "t", "partition": 0}) == '{"partition":0,"topic":"t"}'


def test_offsets_lists_every_partition_of_one_connector_only(store: OffsetStore) -> None:
    store.put("files", [({"file": "x"}, {"position": 1}), ({"file": "y"}, {"position": 2})])
    store.put("other", [({"file": "x"}, {"position": 3})])
    store.read_to_end()
    assert store.offsets("files") == {
        '{"file":"x"}': SourceOffset({"file": "x"}, {"position": 1}),
        '{"file":"y"}': SourceOffset({"file": "y"}, {"position": 2}),
    }


def test_a_tombstone_resets_the_offset(store: OffsetStore, raw_records: RawRecords) -> None:
    store.put("files", [({"file": "x"}, {"position": 5}), ({"file": "y"}, {"position": 6})])
    store.put("files", [({"file": "x"}, None)])
    store.read_to_end()
    assert store.get("files", {"file": "x"}) is None
    assert list(store.offsets("files")) == ['{"file":"y"}']
    assert (b'["files",{"file":"x"}]', None) in raw_records(TOPIC)


def test_records_that_are_not_connect_offsets_are_ignored(log: Log, store: OffsetStore) -> None:
    with log.producer() as producer:
        producer.send(TOPIC, b'{"position":1}', key=b'"not-a-list"')
        producer.send(TOPIC, b"[1,2]", key=b'["files",{"file":"x"}]')
        producer.flush()
    store.read_to_end()
    assert store.offsets("files") == {}


def test_offsets_written_by_kafka_connect_are_read(log: Log, store: OffsetStore) -> None:
    key = b'["files",{"filename":"/tmp/in.txt"}]'
    with log.producer() as producer:
        producer.send(TOPIC, b'{"position":42}', key=key, partition=partition_for_key(key, 25))
        producer.flush()
    store.read_to_end()
    assert store.get("files", {"filename": "/tmp/in.txt"}) == {"position": 42}


def test_offsets_in_a_transaction_appear_only_when_it_commits(log: Log, store: OffsetStore) -> None:
    producer = log.producer(transactional_id="workers-files-0")
    producer.init_transactions()
    producer.begin_transaction()
    store.write(producer, "files", [({"file": "x"}, {"position": 5})])
    producer.flush()
    with pytest.raises(StorageTimeoutError):
        store.read_to_end(timeout_s=1.0)  # the end lies past the open transaction, which never ends here
    assert store.get("files", {"file": "x"}) is None
    producer.commit_transaction()
    store.read_to_end()
    assert store.get("files", {"file": "x"}) == {"position": 5}


def test_offsets_of_an_aborted_transaction_never_appear(log: Log, store: OffsetStore) -> None:
    producer = log.producer(transactional_id="workers-files-0")
    producer.init_transactions()
    producer.begin_transaction()
    store.write(producer, "files", [({"file": "x"}, {"position": 5})])
    producer.flush()
    producer.abort_transaction()
    store.read_to_end()
    assert store.get("files", {"file": "x"}) is None


def test_a_second_store_sees_offsets_after_reading_to_the_end(log_url: str, store: OffsetStore) -> None:
    with open_log(log_url) as second_log:
        second = OffsetStore(second_log)
        second.start()
        store.put("files", [({"file": "x"}, {"position": 5})])
        assert second.get("files", {"file": "x"}) is None
        second.read_to_end()
        assert second.get("files", {"file": "x"}) == {"position": 5}
        second.stop()


def test_the_task_reader_sees_offsets_committed_after_it_was_made(store: OffsetStore) -> None:
    reader = StoreOffsetStorageReader(store, "files")
    store.put("files", [({"file": "x"}, {"position": 5})])
    assert reader.offset({"file": "x"}) == {"position": 5}


def test_the_task_reader_pairs_each_partition_with_its_offset_in_order(store: OffsetStore) -> None:
    store.put("files", [({"file": "x"}, {"position": 5})])
    reader = StoreOffsetStorageReader(store, "files")
    assert reader.offsets([{"file": "y"}, {"file": "x"}]) == [
        ({"file": "y"}, None),
        ({"file": "x"}, {"position": 5}),
    ]


def test_the_task_reader_sees_only_its_connector(store: OffsetStore) -> None:
    store.put("other", [({"file": "x"}, {"position": 5})])
    assert StoreOffsetStorageReader(store, "files").offset({"file": "x"}) is None
