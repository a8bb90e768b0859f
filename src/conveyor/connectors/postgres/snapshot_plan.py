"""The plan of a parallel snapshot: the exported snapshot every task reads in, and each captured table
split into primary-key chunks, spread over the connector's tasks by index.

The plan and each chunk's progress are source offsets (partitions ``{"server": <prefix>, "snapshot":
"plan"}`` and ``{"server": <prefix>, "snapshot": "chunk-<n>"}``), so they commit with the records they
describe: with exactly-once support a task resumes a chunk after its last committed row.

A snapshot whose exported snapshot died (task 0 or its worker gone) goes on in a newer one (the plan's
*reading* snapshot, see :mod:`snapshot_resume`); each chunk's progress then lists where its rows switch
from one snapshot to the next, so the stream knows which snapshot saw each key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
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
    """One snapshot: the slot's consistent point, the exported snapshot's name, and the chunks; after an
    interruption, the newer exported snapshot the chunks not yet written are read in, and its consistent
    point."""

    lsn: int
    snapshot: str
    xid: int
    started_us: int
    chunks: tuple[Chunk, ...]
    reading_snapshot: str | None = None
    reading_lsn: int | None = None

    @property
    def id(self) -> str:
        """Unique per snapshot: a chunk offset counts only for the plan it names."""
        return f"{self.lsn}:{self.snapshot}"

    @property
    def read_snapshot(self) -> str:
        """The exported snapshot the tasks read chunks in now."""
        return self.reading_snapshot or self.snapshot

    @property
    def read_lsn(self) -> int:
        """The consistent point of :attr:`read_snapshot`: it sees the transactions committed before it."""
        return self.reading_lsn if self.reading_lsn is not None else self.lsn

    @property
    def reading_id(self) -> str:
        return f"{self.id}/{self.read_snapshot}"

    def read_in(self, snapshot: str, lsn: int) -> SnapshotPlan:
        """The same plan, its chunks not yet written to be read in ``snapshot`` (consistent at ``lsn``)."""
        return replace(self, reading_snapshot=snapshot, reading_lsn=lsn)

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
            "reading_snapshot": self.reading_snapshot,
            "reading_lsn": self.reading_lsn,
            "snapshot": True,
        }

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any] | None) -> SnapshotPlan | None:
        if not offset or "chunks" not in offset:
            return None
        chunks = tuple(Chunk.from_json(index, item) for index, item in enumerate(offset["chunks"]))
        lsn, name = int(offset["lsn"]), str(offset["snapshot_name"])
        reading = offset.get("reading_snapshot")
        reading_lsn = offset.get("reading_lsn")
        return cls(
            lsn,
            name,
            int(offset["txId"]),
            int(offset["ts_usec"]),
            chunks,
            None if reading is None else str(reading),
            None if reading_lsn is None else int(reading_lsn),
        )


def plan_partition(prefix: str) -> dict[str, str]:
    return {"server": prefix, "snapshot": PLAN_PARTITION_VALUE}


def chunk_partition(prefix: str, index: int) -> dict[str, str]:
    return {"server": prefix, "snapshot": f"chunk-{index}"}


Key = tuple[str, ...]
Switch = tuple[Key | None, int]
"""From after this key (None: from the chunk's start) the chunk's rows were read in the snapshot consistent
at this LSN."""


@dataclass(frozen=True)
class ChunkProgress:
    """How far a chunk of a plan is written (nothing, up to a key, or all of it), and where its rows
    switched to a newer exported snapshot than the plan's."""

    after: Key | None = None
    done: bool = False
    switches: tuple[Switch, ...] = ()

    @classmethod
    def from_offset(cls, plan: SnapshotPlan, offset: Mapping[str, Any] | None) -> ChunkProgress:
        if not offset or offset.get("plan") != plan.id:
            return cls()
        key = offset.get("key")
        switches = tuple(
            (None if after is None else tuple(after), int(lsn)) for after, lsn in offset.get("switches") or ()
        )
        return cls(None if key is None else tuple(key), bool(offset.get("done")), switches)

    def read_lsn(self, plan: SnapshotPlan) -> int:
        """The consistent point of the snapshot the chunk's last rows were read in."""
        return self.switches[-1][1] if self.switches else plan.lsn

    def reading_in(self, plan: SnapshotPlan) -> tuple[Switch, ...]:
        """The switches once the rest of the chunk is read in the plan's reading snapshot."""
        if self.read_lsn(plan) == plan.read_lsn:
            return self.switches
        kept = self.switches
        if kept and kept[-1][0] == self.after:
            kept = kept[:-1]
        return (*kept, (self.after, plan.read_lsn))


def chunk_offset(
    plan: SnapshotPlan, key: Sequence[str | None] | None, done: bool, switches: Sequence[Switch] = ()
) -> dict[str, Any]:
    return {
        "plan": plan.id,
        "key": None if key is None else list(key),
        "done": done,
        "switches": _written_switches(switches),
        "snapshot": True,
    }


def chunk_offsets(
    plan: SnapshotPlan, keys: Iterable[list[str | None] | None], switches: Sequence[Switch] = ()
) -> list[dict[str, Any]]:
    """``chunk_offset(plan, key, False, switches)`` of each key (a list the offset keeps), what the keys
    share built once."""
    plan_id = plan.id
    written = _written_switches(switches)
    return [
        {"plan": plan_id, "key": key, "done": False, "switches": list(written), "snapshot": True}
        for key in keys
    ]


def _written_switches(switches: Sequence[Switch]) -> list[list[Any]]:
    """Switches as a chunk's offset keeps them: ``[key after which the newer snapshot reads, its lsn]``."""
    return [[None if after is None else list(after), lsn] for after, lsn in switches]
