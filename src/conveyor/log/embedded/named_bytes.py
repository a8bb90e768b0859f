"""A compact encoding of ``[(name, bytes), ...]`` for protocol lists and member metadata in the database."""

from __future__ import annotations

import struct
from collections.abc import Iterable

_ENTRY = struct.Struct("<II")


def pack_named_bytes(pairs: Iterable[tuple[str, bytes]]) -> bytes:
    parts = []
    for name, data in pairs:
        encoded = name.encode()
        parts += [_ENTRY.pack(len(encoded), len(data)), encoded, data]
    return b"".join(parts)


def unpack_named_bytes(blob: bytes) -> list[tuple[str, bytes]]:
    pairs = []
    position = 0
    while position < len(blob):
        name_size, data_size = _ENTRY.unpack_from(blob, position)
        position += _ENTRY.size
        name = blob[position : position + name_size].decode()
        position += name_size
        pairs.append((name, bytes(blob[position : position + data_size])))
        position += data_size
    return pairs
