"""Kafka's murmur2 hash and the key-to-partition rule of its default partitioner.

The same key must land on the same partition number as in Kafka, so that data written by Conveyor and
by Kafka clients agree on which partition holds a key.
"""

from __future__ import annotations

from functools import lru_cache

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK32 = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Return Kafka's ``Utils.murmur2(data)`` as a signed 32-bit integer."""
    length = len(data)
    h = (_SEED ^ length) & _MASK32
    whole = length & ~3
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * _M) & _MASK32
        k ^= k >> 24
        k = (k * _M) & _MASK32
        h = ((h * _M) & _MASK32) ^ k
    tail = length & 3
    if tail:
        if tail == 3:
            h ^= data[whole + 2] << 16
        if tail >= 2:
            h ^= data[whole + 1] << 8
        h ^= data[whole]
        h = (h * _M) & _MASK32
    h ^= h >> 13
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def to_positive(value: int) -> int:
    """Kafka's ``Utils.toPositive``: clear the sign bit."""
    return value & 0x7FFFFFFF


@lru_cache(maxsize=65536)
def _positive_hash(key: bytes) -> int:
    return to_positive(murmur2(key))


def partition_for_key(key: bytes, num_partitions: int) -> int:
    """The partition Kafka's default partitioner picks for a non-null key."""
    return _positive_hash(key) % num_partitions
