"""An error event that fails a poll, handed over by librdkafka together with records of other partitions:
the records come back first and the error on the next poll, as Kafka's consumer does.

Which messages one ``consume()`` call hands over is librdkafka's choice, made as they arrive; so that the
case is certain, these tests gather from the broker a hand-over holding both and give it to the consumer as
its poll does.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import KafkaError, Message

from conveyor.log import OffsetOutOfRangeError, TopicPartition, open_log
from conveyor.log.kafka import KafkaLog
from conveyor.log.kafka.consumer import KafkaLogConsumer
from waiting import wait_until

VALUES = [b"%d" % n for n in range(50)]
GOOD = TopicPartition("read", 0)
BEYOND = TopicPartition("read", 1)


@pytest.fixture
def kafka_log(kafka_bootstrap: str) -> Iterator[KafkaLog]:
    log = open_log(f"kafka://{kafka_bootstrap}?namespace=h{uuid.uuid4().hex[:12]}.")
    assert isinstance(log, KafkaLog)
    yield log
    log.close()


@pytest.fixture
def consumer(kafka_log: KafkaLog) -> Iterator[KafkaLogConsumer]:
    """A consumer with auto.offset.reset=none of ``GOOD`` (its records from the start) and of the empty
    ``BEYOND`` from a position past its end."""
    kafka_log.admin().create_topic(GOOD.topic, partitions=2)
    with kafka_log.producer() as producer:
        producer.send_batch(GOOD.topic, VALUES, partition=GOOD.partition)
    consumer = kafka_log.consumer(auto_offset_reset="none")
    assert isinstance(consumer, KafkaLogConsumer)
    consumer.assign([GOOD, BEYOND])
    consumer.seek(GOOD, 0)
    consumer.seek(BEYOND, 10)
    yield consumer
    consumer.close()


def out_of_range(message: Message) -> bool:
    error = message.error()
    return error is not None and error.code() == KafkaError._AUTO_OFFSET_RESET


def hand_over_with_the_error(consumer: KafkaLogConsumer) -> list[Message]:
    """Every record of ``GOOD`` and the out-of-range event of ``BEYOND``, as one ``consume()`` call hands
    them over once both have arrived."""
    gathered: list[Message] = []

    def complete() -> bool:
        gathered.extend(consumer._consumer.consume(1000, 0.1))
        records = [message for message in gathered if message.error() is None]
        return len(records) == len(VALUES) and any(map(out_of_range, gathered))

    wait_until(complete, "the records and the out-of-range event")
    return gathered


def test_records_handed_over_with_an_out_of_range_event_come_back_before_its_error(
    consumer: KafkaLogConsumer,
) -> None:
    batches = consumer._batches(hand_over_with_the_error(consumer))
    assert [value for batch in batches for value in batch.values] == VALUES
    assert consumer.position(GOOD) == len(VALUES)
    with pytest.raises(OffsetOutOfRangeError, match=str(BEYOND)):
        consumer.poll()


def test_the_error_held_back_is_raised_by_poll_batch_too(consumer: KafkaLogConsumer) -> None:
    consumer._batches(hand_over_with_the_error(consumer))
    with pytest.raises(OffsetOutOfRangeError, match=str(BEYOND)):
        consumer.poll_batch()


def test_a_seek_of_the_failing_partition_drops_its_held_back_error(consumer: KafkaLogConsumer) -> None:
    consumer._batches(hand_over_with_the_error(consumer))
    consumer.seek(BEYOND, 0)
    assert consumer.poll(timeout=1.0) == []


def test_a_new_assignment_drops_the_held_back_error(consumer: KafkaLogConsumer) -> None:
    consumer._batches(hand_over_with_the_error(consumer))
    consumer.assign([GOOD])
    consumer.seek(GOOD, len(VALUES))
    assert consumer.poll(timeout=1.0) == []
