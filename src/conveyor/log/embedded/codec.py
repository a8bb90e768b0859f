"""The on-disk form of a record batch: columns, so that a batch encodes and decodes in a few C-level calls.

Layout (little-endian): a fixed header, then the value-length column (int32, -1 for None), optional key
lengths, timestamps (int64; absent when every record has the header's timestamp), offset deltas (int32;
absent when offsets are dense from the base offset), an encoded headers section, then the concatenated
values and the concatenated keys.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, repeat
from typing import TypeVar

from conveyor.log.api import Headers
from conveyor.log.columns import BinaryColumn

_HEADER = struct.Struct("<BBIqI")
_VERSION = 1
_HAS_KEYS = 1
_HAS_TIMESTAMPS = 2
_HAS_OFFSET_DELTAS = 4
_HAS_HEADERS = 8
_HEADER_ENTRY = struct.Struct("<Hi")
_NO_HEADERS: Headers = []

T = TypeVar("T")


@dataclass(slots=True)
class DecodedBatch:
    """The columns of one stored batch; ``offset_deltas`` is None when offsets are dense."""

    values: Sequence[bytes | None]
    keys: Sequence[bytes | None]
    timestamps: Sequence[int]
    headers: Sequence[Headers]
    offset_deltas: Sequence[int] | None

    def __len__(self) -> int:
        return len(self.values)


def encode_batch(
    values: Sequence[bytes | None],
    keys: Sequence[bytes | None] | None,
    timestamps: Sequence[int],
    headers: Sequence[Headers | None] | None,
    offset_deltas: Sequence[int] | None = None,
) -> bytes:
    """Encode one batch; ``keys``/``headers`` may be None when no record has any."""
    count = len(values)
    flags = 0
    parts: list[bytes] = []
    value_lengths, value_bytes = _encode_column(values)
    parts.append(value_lengths)
    key_bytes = b""
    if keys is not None and keys.count(None) != count:
        flags |= _HAS_KEYS
        key_lengths, key_bytes = _encode_column(keys)
        parts.append(key_lengths)
    first_timestamp = timestamps[0] if count else 0
    if count and timestamps.count(first_timestamp) != count:
        flags |= _HAS_TIMESTAMPS
        parts.append(array("q", timestamps).tobytes())
    if offset_deltas is not None:
        flags |= _HAS_OFFSET_DELTAS
        parts.append(array("i", offset_deltas).tobytes())
    if headers is not None and any(headers):
        flags |= _HAS_HEADERS
        parts.append(_encode_headers(headers))
    parts.append(value_bytes)
    parts.append(key_bytes)
    return _HEADER.pack(_VERSION, flags, count, first_timestamp, len(value_bytes)) + b"".join(parts)


def decode_batch(payload: bytes) -> DecodedBatch:
    """Decode a batch written by ``encode_batch``."""
    version, flags, count, first_timestamp, values_size = _HEADER.unpack_from(payload)
    if version != _VERSION:
        raise ValueError(f"Unknown record batch version {version}")
    position = _HEADER.size
    value_lengths, position = _read_array("i", payload, position, count)
    key_lengths = None
    if flags & _HAS_KEYS:
        key_lengths, position = _read_array("i", payload, position, count)
    timestamps: Sequence[int] = repeat_list(first_timestamp, count)
    if flags & _HAS_TIMESTAMPS:
        timestamps, position = _read_array("q", payload, position, count)
    offset_deltas = None
    if flags & _HAS_OFFSET_DELTAS:
        offset_deltas, position = _read_array("i", payload, position, count)
    headers: Sequence[Headers] = repeat_list(_NO_HEADERS, count)
    if flags & _HAS_HEADERS:
        headers, position = _decode_headers(payload, position, count)
    values = _split_column(payload, position, value_lengths)
    keys: Sequence[bytes | None] = repeat_list(None, count)
    if key_lengths is not None:
        keys = _split_column(payload, position + values_size, key_lengths)
    return DecodedBatch(values, keys, timestamps, headers, offset_deltas)


def repeat_list(item: T, count: int) -> list[T]:
    """A list of ``count`` references to ``item`` (a column whose records all agree)."""
    return list(repeat(item, count))


def _encode_column(column: Sequence[bytes | None]) -> tuple[bytes, bytes]:
    if None in column:
        lengths = array("i", [-1 if item is None else len(item) for item in column])
        return lengths.tobytes(), b"".join(item for item in column if item is not None)
    present: Sequence[bytes] = column  # type: ignore[assignment]
    return array("i", list(map(len, present))).tobytes(), b"".join(present)


def _read_array(typecode: str, payload: bytes, position: int, count: int) -> tuple[array[int], int]:
    column = array(typecode)
    end = position + count * column.itemsize
    column.frombytes(payload[position:end])
    return column, end


def _split_column(payload: bytes, start: int, lengths: array[int]) -> Sequence[bytes | None]:
    if min(lengths, default=0) >= 0:
        return BinaryColumn(payload, array("q", accumulate(lengths, initial=start)))
    ends = list(accumulate((n if n > 0 else 0 for n in lengths), initial=start))
    return [None if n < 0 else payload[ends[i] : ends[i + 1]] for i, n in enumerate(lengths)]


def _encode_headers(headers: Sequence[Headers | None]) -> bytes:
    counts = array("i", [len(h) if h else 0 for h in headers])
    out = [struct.pack("<I", 0), counts.tobytes()]
    for record_headers in headers:
        for name, value in record_headers or ():
            encoded_name = name.encode()
            out.append(_HEADER_ENTRY.pack(len(encoded_name), -1 if value is None else len(value)))
            out.append(encoded_name)
            if value is not None:
                out.append(value)
    section = b"".join(out)
    return struct.pack("<I", len(section)) + section[4:]


def _decode_headers(payload: bytes, position: int, count: int) -> tuple[list[Headers], int]:
    (section_size,) = struct.unpack_from("<I", payload, position)
    end = position + section_size
    counts, position = _read_array("i", payload, position + 4, count)
    result: list[Headers] = []
    for record_count in counts:
        record_headers: Headers = []
        for _ in range(record_count):
            name_size, value_size = _HEADER_ENTRY.unpack_from(payload, position)
            position += _HEADER_ENTRY.size
            name = payload[position : position + name_size].decode()
            position += name_size
            value = None
            if value_size >= 0:
                value = payload[position : position + value_size]
                position += value_size
            record_headers.append((name, value))
        result.append(record_headers)
    return result, end
