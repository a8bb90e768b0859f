"""Checking generated records read back from a topic: per task, what arrived twice and what never did."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from conveyor.connectors.generator.payload import parse_header

MISSING_SAMPLE_SIZE = 10


@dataclass(frozen=True)
class TaskTally:
    """What arrived from one task: ``gaps`` counts sequence numbers in the expected range never seen."""

    task: int
    received: int
    distinct: int
    duplicates: int
    gaps: int
    first_missing: tuple[int, ...] = ()


@dataclass(frozen=True)
class Verification:
    """The tallies of every task, and how many values were not generated ones at all."""

    tasks: dict[int, TaskTally] = field(default_factory=dict)
    unreadable: int = 0

    @property
    def distinct(self) -> int:
        return sum(tally.distinct for tally in self.tasks.values())

    @property
    def duplicates(self) -> int:
        return sum(tally.duplicates for tally in self.tasks.values())

    @property
    def gaps(self) -> int:
        return sum(tally.gaps for tally in self.tasks.values())

    @property
    def exactly_once(self) -> bool:
        """Every expected record arrived, none twice, and nothing else arrived."""
        return self.duplicates == 0 and self.gaps == 0 and self.unreadable == 0


def verify(
    values: Iterable[bytes | str | None],
    expected_per_task: int | None = None,
    expected_tasks: int | None = None,
) -> Verification:
    """Tally generated values per task.

    Gaps are counted over ``[0, expected_per_task)``, or up to the highest sequence number seen when it
    is not given. ``expected_tasks`` adds a tally for each task from which nothing arrived.
    """
    seqnos_by_task: dict[int, list[int]] = defaultdict(list)
    unreadable = 0
    for value in values:
        header = None if value is None else parse_header(value)
        if header is None:
            unreadable += 1
            continue
        seqnos_by_task[header[0]].append(header[1])
    for task in range(expected_tasks or 0):
        seqnos_by_task.setdefault(task, [])
    tallies = {
        task: _tally(task, seqnos, expected_per_task) for task, seqnos in sorted(seqnos_by_task.items())
    }
    return Verification(tallies, unreadable)


def _tally(task: int, seqnos: list[int], expected_per_task: int | None) -> TaskTally:
    distinct = set(seqnos)
    expected = expected_per_task if expected_per_task is not None else max(distinct, default=-1) + 1
    gaps = expected - sum(1 for seqno in distinct if seqno < expected)
    missing = _first_missing(distinct, expected) if gaps else ()
    return TaskTally(task, len(seqnos), len(distinct), len(seqnos) - len(distinct), gaps, missing)


def _first_missing(seen: set[int], expected: int) -> tuple[int, ...]:
    missing: list[int] = []
    for seqno in range(expected):
        if seqno not in seen:
            missing.append(seqno)
            if len(missing) == MISSING_SAMPLE_SIZE:
                break
    return tuple(missing)
