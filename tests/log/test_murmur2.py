"""The default partitioner agrees with Kafka's: ``Utils.murmur2`` vectors from Kafka's own UtilsTest."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.log import Log, murmur2, partition_for_key

from .conftest import read_all

KAFKA_MURMUR2_VECTORS = [
    (b"21", -973932308),
    (b"foobar", -790332482),
    (b"a-little-bit-long-string", -985981536),
    (b"a-little-bit-longer-string", -1486304829),
    (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
    (b"abc", 479470107),
]


@pytest.mark.parametrize(("key", "expected"), KAFKA_MURMUR2_VECTORS)
def test_murmur2_matches_kafka_utils_murmur2(key: bytes, expected: int) -> None:
    assert murmur2(key) == expected


@pytest.mark.parametrize(("key", "expected"), KAFKA_MURMUR2_VECTORS)
def test_partition_for_key_is_positive_murmur2_modulo_partition_count(key: bytes, expected: int) -> None:
    assert partition_for_key(key, 7) == (expected & 0x7FFFFFFF) % 7


@given(st.binary(max_size=64), st.integers(min_value=1, max_value=1000))
def test_partition_for_key_is_always_a_valid_partition(key: bytes, partitions: int) -> None:
    assert 0 <= partition_for_key(key, partitions) < partitions


def test_keyed_send_lands_on_the_partition_kafka_would_choose(log: Log, topic: str) -> None:
    keys = [key for key, _ in KAFKA_MURMUR2_VECTORS]
    with log.producer() as producer:
        for key in keys:
            producer.send(topic, b"v", key=key)
    placed = {record.key: record.partition for record in read_all(log, topic)}
    assert placed == {key: (expected & 0x7FFFFFFF) % 3 for key, expected in KAFKA_MURMUR2_VECTORS}
