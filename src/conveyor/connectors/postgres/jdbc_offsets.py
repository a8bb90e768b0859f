"""The JDBC source's source partitions and offsets, in the shape Confluent's connector writes them.

Partition of a table ``{"protocol": "1", "table": "<schema>.<table>"}`` (or ``{"query": "query"}`` for a
custom query); offset ``{"incrementing": <long>}``, ``{"timestamp": <epoch ms>, "timestamp_nanos": <nanos
of the second>}`` or both. Offsets Confluent's connector committed under its other table names (the
protocol 0 ``{"table": "<table>"}``, and ``<db>.<schema>.<table>`` from its releases that named the
catalog) are read too, newest first, so a takeover resumes where it stopped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from conveyor.connectors.postgres.jdbc_tables import TableId
from conveyor.errors import BadRequestError

TABLE_KEY: Final = "table"
PROTOCOL_KEY: Final = "protocol"
PROTOCOL_V1: Final = "1"
QUERY_KEY: Final = "query"
QUERY_VALUE: Final = "query"
INCREMENTING_FIELD: Final = "incrementing"
TIMESTAMP_FIELD: Final = "timestamp"
TIMESTAMP_NANOS_FIELD: Final = "timestamp_nanos"

QUERY_PARTITION: Final[Mapping[str, str]] = {QUERY_KEY: QUERY_VALUE}
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_NANOS_PER_SECOND: Final = 1_000_000_000


def table_partition(table: TableId) -> dict[str, str]:
    """The partition Conveyor writes for ``table`` (Confluent's protocol 1)."""
    return {PROTOCOL_KEY: PROTOCOL_V1, TABLE_KEY: table.unquoted}


def partitions_to_read(table: TableId, database: str) -> list[dict[str, str]]:
    """Every partition an offset of ``table`` may have been committed under, the preferred first."""
    return [
        table_partition(table),
        {PROTOCOL_KEY: PROTOCOL_V1, TABLE_KEY: f"{database}.{table.unquoted}"},
        {TABLE_KEY: table.table},
    ]


@dataclass(frozen=True)
class JdbcOffset:
    """How far a table (or query) has been read: the last incrementing value and timestamp copied."""

    incrementing: int | None = None
    timestamp: dt.datetime | None = None
    """UTC, to the microsecond (PostgreSQL's precision)."""

    def to_map(self) -> dict[str, int]:
        """Confluent's offset map: ``timestamp`` in whole epoch milliseconds and ``timestamp_nanos`` the
        nanoseconds within its second (Java's ``Timestamp.getTime`` and ``getNanos``)."""
        offset: dict[str, int] = {}
        if self.incrementing is not None:
            offset[INCREMENTING_FIELD] = self.incrementing
        if self.timestamp is not None:
            since_epoch = self.timestamp - _EPOCH
            micros = (since_epoch.days * 86_400 + since_epoch.seconds) * 1_000_000 + since_epoch.microseconds
            offset[TIMESTAMP_FIELD] = micros // 1000
            offset[TIMESTAMP_NANOS_FIELD] = (micros % 1_000_000) * 1000
        return offset

    @classmethod
    def from_map(cls, offset: Mapping[str, Any] | None) -> JdbcOffset:
        """The offset a map holds; raises :class:`BadRequestError` saying which field is wrong."""
        check_offset(offset)
        if not offset:
            return cls()
        millis = offset.get(TIMESTAMP_FIELD)
        timestamp = None
        if millis is not None:
            seconds = millis // 1000
            nanos = offset.get(TIMESTAMP_NANOS_FIELD)
            micros = nanos // 1000 if nanos is not None else (millis % 1000) * 1000
            timestamp = _EPOCH + dt.timedelta(seconds=seconds, microseconds=micros)
        return cls(offset.get(INCREMENTING_FIELD), timestamp)

    @classmethod
    def at_millis(cls, millis: int) -> JdbcOffset:
        """An offset whose timestamp is ``millis`` (``timestamp.initial``)."""
        return cls.from_map({TIMESTAMP_FIELD: millis})


def check_offset(offset: Mapping[str, Any] | None) -> None:
    """Raise :class:`BadRequestError` (a 400) unless ``offset`` is null or a Confluent JDBC offset."""
    if offset is None:
        return
    known = {INCREMENTING_FIELD, TIMESTAMP_FIELD, TIMESTAMP_NANOS_FIELD}
    unknown = sorted(set(offset) - known)
    if unknown:
        raise BadRequestError(
            f"The JDBC source's offsets hold only {', '.join(sorted(known))}; "
            f"unknown key(s): {', '.join(unknown)}"
        )
    for field in known:
        value = offset.get(field)
        if value is not None and not (isinstance(value, int) and not isinstance(value, bool)):
            raise BadRequestError(
                f"The value for the '{field}' key in the offset is expected to be a Long value"
            )
    nanos = offset.get(TIMESTAMP_NANOS_FIELD)
    if nanos is not None:
        if offset.get(TIMESTAMP_FIELD) is None:
            raise BadRequestError(f"An offset with '{TIMESTAMP_NANOS_FIELD}' needs '{TIMESTAMP_FIELD}' too")
        if not 0 <= nanos < _NANOS_PER_SECOND:
            raise BadRequestError(
                f"'{TIMESTAMP_NANOS_FIELD}' must be the nanoseconds within the second: 0 to 999999999"
            )


def check_partition(partition: Mapping[str, Any] | None) -> None:
    """Raise :class:`BadRequestError` unless ``partition`` names a table or the query as Confluent's do."""
    if partition is None:
        raise BadRequestError("Partition objects cannot be null")
    if dict(partition) == QUERY_PARTITION:
        return
    if not isinstance(partition.get(TABLE_KEY), str):
        raise BadRequestError(
            f"Partition objects should contain the key '{TABLE_KEY}' naming a table (\"schema.table\") "
            f"with '{PROTOCOL_KEY}': '{PROTOCOL_V1}', or be {{\"{QUERY_KEY}\": \"{QUERY_VALUE}\"}}"
        )
