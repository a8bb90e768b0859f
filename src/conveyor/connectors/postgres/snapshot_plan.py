"""The plan of a parallel snapshot: the exported snapshot every task reads in, and each captured table
split into primary-key chunks, spread over the connector's tasks by index.

The plan and each chunk's progress are source offsets (partitions ``{"server": <prefix>, "snapshot":
"plan"}`` and ``{"server": <prefix>, "snapshot": "chunk-<n>"}``), so they commit with the records they
describe: with exactly-once support a task resumes a chunk after its last committed row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conveyor.connectors.postgres.catalog import TableId

PLAN_PARTITION_VALUE = "plan"


@dataclass(frozen=True)
class Chunk:
    """The rows of ``table`` whose primary key is at least ``lower`` and below ``upper`` (None: no bound),
    keys in their text form; ``first``/``last`` say whether it opens or closes its table."""

    index: int
    table: TableId
    lower: tuple[str, ...] | None
    upper: tuple[str, ...] | None
    first: bool
    last: bool

    def to_json(self) -> list[Any]:
        bounds = [None if b is None else list(b) for b in (self.lower, self.upper)]
        return [self.table.schema, self.table.table, *bounds, self.first, self.last]

    @classmethod
    def from_json(cls, index: int, item: Sequence[Any]) -> Chunk:
        schema, table, lower, upper, first, last = item
        return cls(
            index,
            TableId(schema, table),
            None if lower is None else tuple(lower),
            None if upper is None else tuple(upper),
            bool(first),
            bool(last),
        )


@dataclass(frozen=True)
class SnapshotPlan:
    """One snapshot: the slot's consistent point, the exported snapshot's name, and the chunks."""

    lsn: int
    snapshot: str
    xid: int
    started_us: int
    chunks: tuple[Chunk, ...]

    @property
    def id(self) -> str:
        """Unique per snapshot: a chunk offset counts only for the plan it names."""
        return f"{self.lsn}:{self.snapshot}"

    def chunks_of(self, task: int, tasks: int) -> list[Chunk]:
        return [chunk for chunk in self.chunks if chunk.index % tasks == task]

    def to_offset(self) -> dict[str, Any]:
        return {
            "plan": self.id,
            "lsn": self.lsn,
            "snapshot_name": self.snapshot,
            "txId": self.xid,
            "ts_usec": self.started_us,
            "chunks": [chunk.to_json() for chunk in self.chunks],
            "snapshot": True,
        }

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any] | None) -> SnapshotPlan | None:
        if not offset or "chunks" not in offset:
            return None
        chunks = tuple(Chunk.from_json(index, item) for index, item in enumerate(offset["chunks"]))
        lsn, name = int(offset["lsn"]), str(offset["snapshot_name"])
        return cls(lsn, name, int(offset["txId"]), int(offset["ts_usec"]), chunks)


def plan_partition(prefix: str) -> dict[str, str]:
    return {"server": prefix, "snapshot": PLAN_PARTITION_VALUE}


def chunk_partition(prefix: str, index: int) -> dict[str, str]:
    return {"server": prefix, "snapshot": f"chunk-{index}"}


@dataclass(frozen=True)
class ChunkProgress:
    """How far a chunk of a plan is written: nothing, up to a key, or all of it."""

    after: tuple[str, ...] | None = None
    done: bool = False

    @classmethod
    def from_offset(cls, plan: SnapshotPlan, offset: Mapping[str, Any] | None) -> ChunkProgress:
        if not offset or offset.get("plan") != plan.id:
            return cls()
        key = offset.get("key")
        return cls(None if key is None else tuple(key), bool(offset.get("done")))


def chunk_offset(plan: SnapshotPlan, key: Sequence[str | None] | None, done: bool) -> dict[str, Any]:
    return {"plan": plan.id, "key": None if key is None else list(key), "done": done, "snapshot": True}
