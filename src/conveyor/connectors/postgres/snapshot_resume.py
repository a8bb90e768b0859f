"""Resuming a snapshot whose exported snapshot died, without reading a written row again or losing a change.

An exported snapshot lives only as long as the session that exported it: when task 0 or its worker dies
mid-snapshot, the chunks not yet written cannot be read in it any more. The slot survives (nothing
confirmed it past its consistent point ``L1``), so task 0 keeps it, opens a *temporary* logical slot with
``EXPORT_SNAPSHOT`` and reads the rest of the chunks in that newer snapshot, which sees exactly the
transactions committed before its consistent point ``L2``. Each chunk's offset records after which key its
rows switched to that snapshot (``ChunkProgress.switches``), so every key of every table was read in
exactly one snapshot, known by its consistent point.

The stream still starts at ``L1``, and a consumer applying the events in order ends with the table when,
for each key, it gets the row as some snapshot saw it and then every change committed after that snapshot.
So the stream drops a change of a key read in the snapshot consistent at ``Lk`` when its transaction
committed before ``Lk`` (that snapshot already shows it), and passes everything else. Keys are compared by
PostgreSQL itself, with the columns' own types and collations, since the chunk bounds are its ordering.
Only changes committed before the latest ``Lk`` are checked, so the check ends with the window the
interruption opened. A ``TRUNCATE`` in that window is passed, and every later change of its table too:
replayed from the empty table, they rebuild the rows the newer snapshot showed.

Debezium's incremental snapshots (Netflix's DBLog) reconcile the other way round: they read a chunk
between a low and a high watermark written to the WAL, and drop from the chunk the rows the stream changed
in between. Here the exported snapshot's consistent point plays the watermark, exactly, and the stream
defers to the snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg2
from psycopg2 import sql

from conveyor.connectors.postgres.catalog import CaptureError, TableId
from conveyor.connectors.postgres.connection import first_line
from conveyor.connectors.postgres.snapshot_plan import Chunk, ChunkProgress, Key, SnapshotPlan


@dataclass(frozen=True)
class Segment:
    """Keys of a chunk read in the snapshot consistent at ``lsn``: after ``lower`` (inclusive or not) and up
    to ``upper`` (inclusive or not); a None bound is open."""

    lsn: int
    lower: Key | None
    lower_inclusive: bool
    upper: Key | None
    upper_inclusive: bool


def segments(plan: SnapshotPlan, chunk: Chunk, progress: ChunkProgress) -> list[Segment]:
    """The parts of ``chunk`` read in a snapshot newer than the plan's."""
    found: list[Segment] = []
    switches = progress.switches
    for n, (after, lsn) in enumerate(switches):
        following = switches[n + 1][0] if n + 1 < len(switches) else None
        upper, upper_inclusive = (following, True) if following is not None else (chunk.upper, False)
        lower, lower_inclusive = (after, False) if after is not None else (chunk.lower, True)
        if lsn > plan.lsn:
            found.append(Segment(lsn, lower, lower_inclusive, upper, upper_inclusive))
    return found


class ReadLater:
    """The key ranges read in a snapshot newer than the stream's start, per table: a change committed
    before the snapshot that read its key is already in that read."""

    def __init__(self, ranges: Mapping[TableId, tuple[Sequence[str], Sequence[Segment]]]) -> None:
        self._ranges = {table: (tuple(key), tuple(found)) for table, (key, found) in ranges.items() if found}
        self.horizon = max(
            (segment.lsn for _, found in self._ranges.values() for segment in found), default=0
        )

    @classmethod
    def of(
        cls,
        plan: SnapshotPlan,
        progress: Iterable[tuple[Chunk, ChunkProgress]],
        keys: Mapping[TableId, Sequence[str]],
    ) -> ReadLater | None:
        """The ranges of a plan's chunks, keyed by these primary key columns; None if none was read late."""
        ranges: dict[TableId, tuple[Sequence[str], list[Segment]]] = {}
        for chunk, chunk_progress in progress:
            for segment in segments(plan, chunk, chunk_progress):
                table_segments = ranges.setdefault(chunk.table, (keys.get(chunk.table, ()), []))[1]
                if table_segments and _adjacent(table_segments[-1], segment):
                    segment = Segment(
                        segment.lsn,
                        table_segments[-1].lower,
                        table_segments[-1].lower_inclusive,
                        segment.upper,
                        segment.upper_inclusive,
                    )
                    table_segments.pop()
                table_segments.append(segment)
        read_later = cls(ranges)
        return read_later if read_later.horizon else None

    def forget(self, table: TableId) -> None:
        """Pass every later change of ``table`` (after its truncation)."""
        self._ranges.pop(table, None)

    def covers(self, cursor: Any, table: TableId, commit_lsn: int, values: Mapping[str, str | None]) -> bool:
        """Whether the snapshot that read the key of ``values`` (column name to text) already shows a change
        committed at ``commit_lsn``."""
        if commit_lsn >= self.horizon or table not in self._ranges:
            return False
        key, found = self._ranges[table]
        for segment in found:
            if commit_lsn < segment.lsn and _contains(cursor, table, key, segment, values):
                return True
        return False


def _adjacent(first: Segment, then: Segment) -> bool:
    """Whether ``then`` starts where ``first`` ends, read in the same snapshot (one range for the check)."""
    return (
        first.lsn == then.lsn
        and first.upper is not None
        and first.upper == then.lower
        and not first.upper_inclusive
        and then.lower_inclusive
    )


def _contains(
    cursor: Any, table: TableId, key: Sequence[str], segment: Segment, values: Mapping[str, str | None]
) -> bool:
    """Whether PostgreSQL orders the key of ``values`` inside ``segment`` (a table without key: always)."""
    if not key or (segment.lower is None and segment.upper is None):
        return True
    row_type = sql.SQL("NULL::{}").format(table.quoted())
    sources = [sql.SQL("jsonb_populate_record({}, %s::jsonb) AS k").format(row_type)]
    params: list[str] = [json.dumps({name: values.get(name) for name in key})]
    conditions: list[sql.Composable] = []
    bounds = (
        ("lo", segment.lower, ">=" if segment.lower_inclusive else ">"),
        ("hi", segment.upper, "<=" if segment.upper_inclusive else "<"),
    )
    for alias, bound, operator in bounds:
        if bound is None:
            continue
        sources.append(sql.SQL("jsonb_populate_record({}, %s::jsonb) AS {}").format(row_type, sql.SQL(alias)))
        params.append(json.dumps(dict(zip(key, bound, strict=True))))
        conditions.append(
            sql.SQL("ROW({}) {} ROW({})").format(
                sql.SQL(", ").join(sql.Identifier("k", name) for name in key),
                sql.SQL(operator),
                sql.SQL(", ").join(sql.Identifier(alias, name) for name in key),
            )
        )
    statement = sql.SQL("SELECT {} FROM {}").format(
        sql.SQL(" AND ").join(conditions), sql.SQL(", ").join(sources)
    )
    try:
        cursor.execute(statement, params)
        row = cursor.fetchone()
    except psycopg2.Error as error:
        raise CaptureError(
            f"Could not place a change of {table} against the snapshot's chunks: {first_line(error)}"
        ) from error
    return bool(row and row[0])
