"""What measuring Kafka Connect's task metrics costs a source task loop, per batch.

Printed beside a same-run baseline: the source task loop itself (generator -> converters -> embedded
log, at-least-once, in this process), whose time per batch includes the metrics. The loop records
metrics once per poll and per commit, never per record, and builds a snapshot only when it reports
(a few times a second).

Run: .venv/bin/python bench/task_metrics_bench.py [--batch N] [--batches N]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from conveyor.metrics.task_metrics import SourceTaskMetrics
from pipeline_bench import task_loop


def recording(batches: int, batch: int) -> float:
    """Seconds per batch to record one poll, its write and a commit."""
    metrics = SourceTaskMetrics()
    started = time.perf_counter()
    for _ in range(batches):
        polled = metrics.now()
        metrics.record_poll(batch, metrics.since(polled))
        metrics.record_write(batch)
        metrics.record_commit(0.0001, succeeded=True)
        metrics.record_durable()
    return (time.perf_counter() - started) / batches


def snapshot(times: int) -> float:
    """Seconds per snapshot of every source and task metric."""
    metrics = SourceTaskMetrics()
    for _ in range(100):
        metrics.record_poll(10, 0.001)
    started = time.perf_counter()
    for _ in range(times):
        metrics.snapshot()
    return (time.perf_counter() - started) / times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--batch", type=int, default=100, help="records per poll")
    parser.add_argument("--batches", type=int, default=2000, help="polls the loop runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="conveyor-bench-") as directory:
        rate = task_loop(f"embedded:{directory}/log", args.batches * args.batch, args.batch, False)
    loop_s = args.batch / rate
    record_s = recording(100_000, args.batch)
    snapshot_s = snapshot(10_000)
    print(f"\nsource task loop, {args.batch} records per poll, {args.batches:,} polls")
    print(f"{'':44} {'us/batch':>10} {'of the loop':>12}")
    print(f"{'task loop (baseline, metrics included)':44} {loop_s * 1e6:10.1f} {1:12.1%}")
    print(f"{'recording poll, write, commit metrics':44} {record_s * 1e6:10.2f} {record_s / loop_s:12.2%}")
    print(f"{'one snapshot (at most 4 a second)':44} {snapshot_s * 1e6:10.2f}")
    print(f"loop throughput: {rate:,.0f} records/s")


if __name__ == "__main__":
    main()
