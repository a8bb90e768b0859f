"""The messages of PostgreSQL's ``pgoutput`` logical decoding plugin (protocol version 1), decoded.

``decode(payload)`` turns one ``XLogData`` payload into a message dataclass. Column values stay in the
text form ``pgoutput`` sends; :mod:`conveyor.connectors.postgres.types` converts them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from conveyor.errors import ConnectError

POSTGRES_EPOCH_MICROS: Final = 946_684_800_000_000
"""Microseconds from the Unix epoch to PostgreSQL's (2000-01-01), which its timestamps count from."""


class UnchangedToast:
    """A TOASTed value the change did not touch, so ``pgoutput`` did not send it."""

    _instance: UnchangedToast | None = None

    def __new__(cls) -> UnchangedToast:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNCHANGED_TOAST"


UNCHANGED_TOAST: Final = UnchangedToast()

TupleValue = str | None | UnchangedToast
"""A column's value in a tuple: its text form, ``None`` for ``NULL``, or ``UNCHANGED_TOAST``."""


class PgOutputError(ConnectError):
    """A ``pgoutput`` message that does not decode."""


@dataclass(frozen=True)
class Begin:
    """A transaction starts; ``final_lsn`` is the LSN of its commit record."""

    final_lsn: int
    commit_time_us: int
    """Commit time, microseconds since the Unix epoch."""
    xid: int


@dataclass(frozen=True)
class Commit:
    """A transaction ends; ``end_lsn`` is just past its commit record (where a restart may resume)."""

    flags: int
    commit_lsn: int
    end_lsn: int
    commit_time_us: int


@dataclass(frozen=True)
class Origin:
    lsn: int
    name: str


@dataclass(frozen=True)
class RelationColumn:
    name: str
    type_oid: int
    type_modifier: int
    part_of_key: bool


@dataclass(frozen=True)
class Relation:
    """A table's current shape, sent before its first change in a session and again after it changes."""

    oid: int
    namespace: str
    name: str
    replica_identity: str
    """``d`` default (primary key), ``n`` nothing, ``f`` full, ``i`` index."""
    columns: tuple[RelationColumn, ...]


@dataclass(frozen=True)
class TypeMessage:
    """A user-defined type used by a following Relation message."""

    oid: int
    namespace: str
    name: str


@dataclass(frozen=True)
class Insert:
    relation_oid: int
    new: tuple[TupleValue, ...]


@dataclass(frozen=True)
class Update:
    """``old`` is the old key (``K``) or whole old row (``O``, replica identity full), or None."""

    relation_oid: int
    old: tuple[TupleValue, ...] | None
    old_is_key: bool
    new: tuple[TupleValue, ...]


@dataclass(frozen=True)
class Delete:
    relation_oid: int
    old: tuple[TupleValue, ...]
    old_is_key: bool


@dataclass(frozen=True)
class Truncate:
    cascade: bool
    restart_identity: bool
    relation_oids: tuple[int, ...]


@dataclass(frozen=True)
class LogicalMessage:
    transactional: bool
    lsn: int
    prefix: str
    content: bytes


Message = (
    Begin | Commit | Origin | Relation | TypeMessage | Insert | Update | Delete | Truncate | LogicalMessage
)


def unix_micros(postgres_micros: int) -> int:
    """A PostgreSQL timestamp (microseconds since 2000-01-01) as microseconds since the Unix epoch."""
    return postgres_micros + POSTGRES_EPOCH_MICROS


_INT16: Final = struct.Struct("!h")
_INT32: Final = struct.Struct("!i")
_UINT32: Final = struct.Struct("!I")
_INT64: Final = struct.Struct("!q")
_UINT64: Final = struct.Struct("!Q")


class _Reader:
    __slots__ = ("data", "position")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0

    def byte(self) -> int:
        value = self.data[self.position]
        self.position += 1
        return value

    def char(self) -> str:
        return chr(self.byte())

    def _number(self, layout: struct.Struct) -> int:
        (value,) = layout.unpack_from(self.data, self.position)
        self.position += layout.size
        return int(value)

    def int16(self) -> int:
        return self._number(_INT16)

    def int32(self) -> int:
        return self._number(_INT32)

    def uint32(self) -> int:
        return self._number(_UINT32)

    def int64(self) -> int:
        return self._number(_INT64)

    def uint64(self) -> int:
        return self._number(_UINT64)

    def string(self) -> str:
        end = self.data.index(0, self.position)
        value = self.data[self.position : end].decode()
        self.position = end + 1
        return value

    def raw(self, length: int) -> bytes:
        value = self.data[self.position : self.position + length]
        self.position += length
        return bytes(value)

    def tuple_data(self) -> tuple[TupleValue, ...]:
        count = self.int16()
        values: list[TupleValue] = []
        for _ in range(count):
            kind = self.char()
            if kind == "n":
                values.append(None)
            elif kind == "u":
                values.append(UNCHANGED_TOAST)
            elif kind == "t":
                values.append(self.raw(self.int32()).decode())
            else:
                raise PgOutputError(f"Unknown tuple value kind {kind!r} (binary values need protocol 2+)")
        return tuple(values)


def decode(payload: bytes) -> Message:
    """The message in one ``pgoutput`` payload."""
    if not payload:
        raise PgOutputError("Empty pgoutput message")
    reader = _Reader(payload)
    kind = reader.char()
    try:
        return _DECODERS[kind](reader)
    except KeyError:
        raise PgOutputError(f"Unknown pgoutput message type {kind!r}") from None
    except (struct.error, IndexError, ValueError) as error:
        raise PgOutputError(f"Truncated or malformed pgoutput message {kind!r}: {error}") from error


def _begin(reader: _Reader) -> Begin:
    final_lsn = reader.uint64()
    commit_time = unix_micros(reader.int64())
    return Begin(final_lsn, commit_time, reader.uint32())


def _commit(reader: _Reader) -> Commit:
    flags = reader.byte()
    commit_lsn = reader.uint64()
    end_lsn = reader.uint64()
    return Commit(flags, commit_lsn, end_lsn, unix_micros(reader.int64()))


def _origin(reader: _Reader) -> Origin:
    lsn = reader.uint64()
    return Origin(lsn, reader.string())


def _relation(reader: _Reader) -> Relation:
    oid = reader.uint32()
    namespace = reader.string()
    name = reader.string()
    identity = reader.char()
    columns = []
    for _ in range(reader.int16()):
        flags = reader.byte()
        column_name = reader.string()
        type_oid = reader.uint32()
        columns.append(RelationColumn(column_name, type_oid, reader.int32(), bool(flags & 1)))
    return Relation(oid, namespace, name, identity, tuple(columns))


def _type(reader: _Reader) -> TypeMessage:
    oid = reader.uint32()
    namespace = reader.string()
    return TypeMessage(oid, namespace, reader.string())


def _insert(reader: _Reader) -> Insert:
    oid = reader.uint32()
    marker = reader.char()
    if marker != "N":
        raise PgOutputError(f"Insert without a new tuple (marker {marker!r})")
    return Insert(oid, reader.tuple_data())


def _update(reader: _Reader) -> Update:
    oid = reader.uint32()
    marker = reader.char()
    old: tuple[TupleValue, ...] | None = None
    old_is_key = False
    if marker in ("K", "O"):
        old_is_key = marker == "K"
        old = reader.tuple_data()
        marker = reader.char()
    if marker != "N":
        raise PgOutputError(f"Update without a new tuple (marker {marker!r})")
    return Update(oid, old, old_is_key, reader.tuple_data())


def _delete(reader: _Reader) -> Delete:
    oid = reader.uint32()
    marker = reader.char()
    if marker not in ("K", "O"):
        raise PgOutputError(f"Delete without an old tuple (marker {marker!r})")
    return Delete(oid, reader.tuple_data(), marker == "K")


def _truncate(reader: _Reader) -> Truncate:
    count = reader.uint32()
    options = reader.byte()
    oids = tuple(reader.uint32() for _ in range(count))
    return Truncate(bool(options & 1), bool(options & 2), oids)


def _message(reader: _Reader) -> LogicalMessage:
    flags = reader.byte()
    lsn = reader.uint64()
    prefix = reader.string()
    return LogicalMessage(bool(flags & 1), lsn, prefix, reader.raw(reader.uint32()))


_DECODERS: Final[dict[str, Callable[[_Reader], Message]]] = {
    "B": _begin,
    "C": _commit,
    "O": _origin,
    "R": _relation,
    "Y": _type,
    "I": _insert,
    "U": _update,
    "D": _delete,
    "T": _truncate,
    "M": _message,
}


def format_lsn(lsn: int) -> str:
    """An LSN as PostgreSQL writes it (``16/B374D848``)."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def parse_lsn(text: str) -> int:
    """An LSN from PostgreSQL's ``16/B374D848`` form."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)
