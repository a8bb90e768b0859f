"""Moving a stopped query's checkpoint to other offsets: how ``PATCH`` and ``DELETE
/connectors/<c>/offsets`` reach a Spark sink, whose query resumes from its checkpoint, not its group.

Spark resumes a query after the last batch in the checkpoint's commit log, from that batch's end
offsets in the offset log; the file sink skips batches its ``_spark_metadata`` log already holds and
needs that log's batch ids without gaps. So the checkpoint is moved by rewriting the end offsets of its
last committed batch, and the query stays on its batch numbering:

- the last planned batch committed: its end offsets are rewritten;
- it did not, but the file sink wrote it: it is marked committed, with the new end offsets;
- it did not and the file sink did not write it either: it is dropped (its files, never listed in the
  sink's log, stay unread), and the batch before it gets the new end offsets (with no batch before it,
  the query starts afresh, from the consumer group's offsets).

Spark's offset and commit files are "v1" text: a version line, a metadata line, and one line per source
(here one: the conveyor source's offsets, ``{"topic":{"0":23}}``). A rewritten file is written aside and
renamed into place, and its Hadoop checksum file, which would no longer match, is removed.

A Delta or Iceberg table has no such log to ask: it skips a batch id it already committed for the query,
so a batch the stop cut short must not be dropped and planned again with other offsets (the table
would skip it, losing those records). Its checkpoint is moved only when its last batch committed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final
from urllib.parse import urlparse

from conveyor.data import ConnectError
from conveyor.log import TopicPartition

_VERSION: Final = "v1"
_NO_WATERMARK: Final = 'v1\n{"nextBatchWatermarkMs":0}'
_EARLIEST: Final = 0
"""Where a reset partition resumes: offsets below a partition's first kept offset read from that one."""


class CheckpointError(ConnectError):
    """A checkpoint that cannot be moved: not on a local file system, or not in the state expected."""


def local_directory(location: str) -> Path:
    """A directory on this machine's file system, given as a path or a ``file:`` URI."""
    parsed = urlparse(location)
    if parsed.scheme not in ("", "file"):
        raise CheckpointError(f"Cannot move offsets kept in {location}: only local directories are supported")
    return Path(parsed.path if parsed.scheme else location)


def move_checkpoint(
    checkpoint: Path, sink_log: Path | None, positions: Mapping[TopicPartition, int | None]
) -> bool:
    """Make a query resuming from ``checkpoint`` (writing files listed in ``sink_log``, or a table when
    None) start at ``positions`` (None: the partition's earliest offset); other partitions keep theirs.
    False when there is no checkpoint to move: a query without one starts from its consumer group's
    offsets."""
    offsets_dir, commits_dir = checkpoint / "offsets", checkpoint / "commits"
    planned = _latest(offsets_dir)
    if planned is None:
        return False
    committed = _latest(commits_dir)
    resumed_after: int | None
    if committed == planned:
        resumed_after = planned
    elif sink_log is None:
        raise CheckpointError(
            f"Cannot move the checkpoint {checkpoint}: its last batch {planned} did not finish (the table "
            "may hold it); resume the connector until it does, stop it, and move the offsets then"
        )
    elif (written := _latest(sink_log)) == planned:
        _write(commits_dir / str(planned), _NO_WATERMARK)
        resumed_after = planned
    elif (-1 if committed is None else committed) == planned - 1 and (written is None or written < planned):
        _remove(offsets_dir / str(planned))
        resumed_after = committed
    else:
        raise CheckpointError(
            f"Cannot move the checkpoint {checkpoint}: planned batch {planned}, committed {committed}, "
            f"written {written}"
        )
    if resumed_after is not None:
        _rewrite_end_offsets(offsets_dir / str(resumed_after), positions)
    return True


def _rewrite_end_offsets(batch: Path, positions: Mapping[TopicPartition, int | None]) -> None:
    lines = batch.read_text().splitlines()
    if len(lines) != 3 or lines[0] != _VERSION:
        raise CheckpointError(f"Cannot move the checkpoint: {batch} is not one conveyor source's offsets")
    ends: dict[str, dict[str, int]] = json.loads(lines[2])
    for partition, offset in positions.items():
        ends.setdefault(partition.topic, {})[str(partition.partition)] = (
            _EARLIEST if offset is None else offset
        )
    _write(batch, "\n".join([lines[0], lines[1], json.dumps(ends, sort_keys=True)]))


def _latest(log: Path) -> int | None:
    """The highest batch id of one of Spark's metadata logs (a ``.compact`` file counts as its batch)."""
    if not log.is_dir():
        return None
    ids = [
        int(entry.name.removesuffix(".compact"))
        for entry in log.iterdir()
        if entry.name.split(".")[0].isdigit()
    ]
    return max(ids, default=None)


def _write(target: Path, text: str) -> None:
    staged = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    staged.write_text(text)
    os.replace(staged, target)
    _checksum_of(target).unlink(missing_ok=True)


def _remove(target: Path) -> None:
    target.unlink()
    _checksum_of(target).unlink(missing_ok=True)


def _checksum_of(target: Path) -> Path:
    return target.with_name(f".{target.name}.crc")
