"""Where a chunk's rows switch to a newer exported snapshot, and the key ranges each snapshot read."""

from __future__ import annotations

from conveyor.connectors.postgres.catalog import TableId
from conveyor.connectors.postgres.snapshot_plan import Chunk, ChunkProgress, SnapshotPlan, chunk_offset
from conveyor.connectors.postgres.snapshot_resume import Segment, segments

CHUNK = Chunk(1, TableId("public", "items"), ("71",), ("141",), False, False)
PLAN = SnapshotPlan(100, "snap-1", 7, 0, (CHUNK,))


def progress_after(plan: SnapshotPlan, progress: ChunkProgress, key: str) -> ChunkProgress:
    """The progress a task commits once it wrote the row ``key`` in the plan's reading snapshot."""
    return ChunkProgress.from_offset(plan, chunk_offset(plan, (key,), False, progress.reading_in(plan)))


def test_a_chunk_read_in_one_snapshot_has_no_switch_and_no_late_segment() -> None:
    progress = progress_after(PLAN, ChunkProgress(), "80")
    assert progress.switches == ()
    assert segments(PLAN, CHUNK, progress) == []


def test_a_chunk_interrupted_twice_reads_each_key_range_in_one_of_three_snapshots() -> None:
    progress = progress_after(PLAN, ChunkProgress(), "80")
    second = PLAN.read_in("snap-2", 200)
    progress = progress_after(second, progress, "90")
    third = second.read_in("snap-3", 300)
    progress = progress_after(third, progress, "100")
    assert progress.switches == ((("80",), 200), (("90",), 300))
    assert segments(third, CHUNK, progress) == [
        Segment(200, ("80",), False, ("90",), True),
        Segment(300, ("90",), False, ("141",), False),
    ]


def test_a_chunk_with_nothing_written_before_a_second_interruption_is_read_whole_in_the_newest() -> None:
    second = PLAN.read_in("snap-2", 200)
    third = second.read_in("snap-3", 300)
    progress = ChunkProgress.from_offset(
        second, chunk_offset(second, None, False, ChunkProgress().reading_in(second))
    )
    assert progress.reading_in(third) == ((None, 300),)
    assert segments(third, CHUNK, progress_after(third, progress, "75")) == [
        Segment(300, ("71",), True, ("141",), False)
    ]
