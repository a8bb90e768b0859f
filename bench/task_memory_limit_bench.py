"""What a task host holds, and what its memory watchdog (`task.memory.limit`) costs, in one run.

Run: ``.venv/bin/python bench/task_memory_limit_bench.py [--seconds S] [--rate N]``.
Starts two standalone workers side by side, one with the default `task.memory.limit` and one with
`task.memory.limit=none` (no watchdog), each with four Spark slots and the same three connectors: an
idle generator (1 record/s), a busy generator (N records/s of 1 KB records) and a FileStreamSink that
writes the busy topic to a file, each task in a host process of its own. After a settling time it
measures, in W windows of S seconds, the CPU seconds of each worker's task hosts per busy record polled,
and prints each task's resident memory as its status shows it (`memory-rss-bytes`, what the limit
bounds). Last, the CPU time of one watchdog sample, measured in this process (a host takes two a second).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from connect_vs_kafka_connect import create
from conveyor.metrics.process_memory import resident_bytes
from conveyor.metrics.worker_usage import cpu_seconds, process_tree
from conveyor.spark.memory_watchdog import MemoryWatchdog
from footprint_bench import conveyor_start, healthy, role, tasks_running, wait_for

SETTLE_S = 20.0
CONNECTORS = ("idle", "busy", "sink")


@contextmanager
def worker(directory: Path, limit: str) -> Iterator[tuple[str, int]]:
    directory.mkdir(parents=True)
    settings = {"spark.master": "local[4,1]", "task.memory.limit": limit}
    url, pid, stop = conveyor_start("standalone", directory, settings)()
    try:
        wait_for(lambda: healthy(url), f"the worker with task.memory.limit={limit} to be healthy")
        yield url, pid
    finally:
        stop()


def connectors(url: str, directory: Path, rate: int) -> None:
    generator = {"connector.class": "GeneratorSourceConnector", "tasks.max": "1", "record.size": "1024"}
    create("conveyor", url, {"name": "idle", "config": {**generator, "topic": "idle", "rate": "1"}})
    create("conveyor", url, {"name": "busy", "config": {**generator, "topic": "busy", "rate": str(rate)}})
    sink = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "topics": "busy",
        "file": str(directory / "busy.out"),
    }
    create("conveyor", url, {"name": "sink", "config": sink})
    for name in CONNECTORS:
        wait_for(lambda name=name: tasks_running(url, name, 1), f"{name} to run")  # type: ignore[misc]


def hosts(root: int) -> list[int]:
    return [pid for pid in process_tree(root) if role(pid).startswith("task host")]


def task_metrics(url: str, name: str) -> dict[str, float]:
    metrics: dict[str, float] = httpx.get(f"{url}/connectors/{name}/tasks/0/status", timeout=30).json()[
        "metrics"
    ]
    return metrics


def host_cpu(root: int) -> float:
    return sum(cpu_seconds(pid) for pid in hosts(root))


def polled(url: str) -> float:
    return task_metrics(url, "busy")["source-record-poll-total"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--windows", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root, ExitStack() as stack:
        workers = {limit: stack.enter_context(worker(Path(root) / limit, limit)) for limit in ("2g", "none")}
        for limit, (url, _) in workers.items():
            connectors(url, Path(root) / limit, args.rate)
        time.sleep(SETTLE_S)
        for window in range(args.windows):
            start = {limit: (host_cpu(pid), polled(url)) for limit, (url, pid) in workers.items()}
            time.sleep(args.seconds)
            for limit, (url, pid) in workers.items():
                cpu = host_cpu(pid) - start[limit][0]
                records = polled(url) - start[limit][1]
                per_record_us, share = cpu / max(records, 1) * 1e6, cpu / args.seconds * 100
                print(
                    f"window {window + 1}, task.memory.limit={limit}: {cpu:.2f} CPU s of "
                    f"{len(hosts(pid))} task hosts for {records:.0f} busy records in {args.seconds:.0f} s: "
                    f"{per_record_us:.1f} us a record, {share:.1f}% of a core"
                )
        for limit, (url, _) in workers.items():
            for name in CONNECTORS:
                metrics = task_metrics(url, name)
                shown = metrics.get("memory-limit-bytes")
                print(
                    f"task.memory.limit={limit}, {name}: memory-rss-bytes "
                    f"{metrics['memory-rss-bytes'] / 2**20:.0f} MB, "
                    f"memory-limit-bytes {shown / 2**20 if shown else None}"
                )
    print(f"one watchdog sample: {sample_cost_s() * 1e6:.1f} us of CPU")


def sample_cost_s(samples: int = 20_000) -> float:
    """The CPU seconds of one watchdog sample: reading the resident size and checking it."""
    watchdog = MemoryWatchdog("bench", 2**50, list)
    began = time.process_time()
    for _ in range(samples):
        watchdog.check(resident_bytes() or 0)
    return (time.process_time() - began) / samples


if __name__ == "__main__":
    main()
