"""Many light tasks on one worker: how many run, at what rate, and what each costs in memory and CPU.

Run: ``.venv/bin/python bench/many_tasks_bench.py [--tasks N] [--rate R] [--seconds S]``. A standalone
worker (default ``spark.master`` and ``tasks.per.slot``) runs N one-task generator connectors at R
records/s each. Printed: how long until every task is RUNNING, the records/s all of them write over S
seconds against the N * R they are asked for, how many tasks wait UNASSIGNED, and the resident memory
(RSS) and CPU of the worker's processes: the driver's Python, its JVM, and the Python processes the tasks
run in (the task hosts). Baselines from the same run: the same worker idle, and with as many tasks as
Spark has slots, where each task has a process of its own.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.runtime.task_spec import TaskId
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_jobs import spark_slots

PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def children_named(parent: int, name: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        if ppid == parent and comm == name:
            found.append(int(entry))
    return found


@dataclass
class Footprint:
    tasks: int
    host_processes: int
    driver_mb: float
    jvm_mb: float
    hosts_mb: float

    def line(self, label: str, idle: Footprint | None) -> str:
        total = self.driver_mb + self.jvm_mb + self.hosts_mb
        per_task = ""
        if idle is not None and self.tasks:
            idle_total = idle.driver_mb + idle.jvm_mb + idle.hosts_mb
            per_task = f"{(total - idle_total) / self.tasks:9.1f}"
        return (
            f"{label:34}{self.tasks:6}{self.host_processes:7}{self.driver_mb:9.0f}{self.jvm_mb:9.0f}"
            f"{self.hosts_mb:9.0f}{total:9.0f}{per_task:>10}"
        )


def host_pids(worker: StandaloneWorker, names: list[str]) -> set[int]:
    pids = set()
    for name in names:
        pid = worker.runner.metrics(TaskId(name, 0)).get("pid")
        if isinstance(pid, int):
            pids.add(pid)
    return pids


def footprint(worker: StandaloneWorker, names: list[str], jvm: int) -> Footprint:
    hosts = host_pids(worker, names)
    return Footprint(
        len(names), len(hosts), rss_mb(os.getpid()), rss_mb(jvm), sum(rss_mb(pid) for pid in hosts)
    )


def task_states(client: httpx.Client, names: list[str]) -> list[str]:
    return [
        task["state"] for name in names for task in client.get(f"/connectors/{name}/status").json()["tasks"]
    ]


def start_connectors(client: httpx.Client, names: list[str], rate: float) -> float:
    """Create the connectors; seconds until every task is RUNNING."""
    began = time.perf_counter()
    for name in names:
        config = {
            "connector.class": "GeneratorSourceConnector",
            "topic": name,
            "rate": str(rate),
            "tasks.max": "1",
        }
        response = client.post("/connectors", json={"name": name, "config": config})
        assert response.status_code == 201, response.text
    deadline = time.monotonic() + 600
    while task_states(client, names) != ["RUNNING"] * len(names):
        if time.monotonic() > deadline:
            raise TimeoutError("not every task reached RUNNING")
        time.sleep(1.0)
    return time.perf_counter() - began


def written(worker: StandaloneWorker, names: list[str]) -> int:
    admin = worker.log.admin()
    topics = [name for name in names if name in admin.list_topics()]
    described = admin.describe_topics(topics)
    partitions = [tp for topic in topics for tp in described[topic].topic_partitions()]
    return sum(offsets.latest for offsets in admin.list_offsets(partitions).values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="conveyor-many-tasks-bench-"))
    config = WorkerConfig.from_props({"data.dir": str(root), "listeners": "http://127.0.0.1:0"})
    with StandaloneWorker(config) as worker, httpx.Client(base_url=worker.url, timeout=120.0) as client:
        jvm = children_named(os.getpid(), "java")[0]
        slots = spark_slots(get_or_create_session())
        idle = footprint(worker, [], jvm)
        first = [f"light-{index}" for index in range(slots)]
        rest = [f"light-{index}" for index in range(slots, args.tasks)]
        one_each_s = start_connectors(client, first, args.rate)
        one_each = footprint(worker, first, jvm)
        shared_s = start_connectors(client, rest, args.rate)
        names = first + rest
        hosts = host_pids(worker, names)
        processes = [os.getpid(), jvm, *hosts]
        cpu_before = sum(cpu_s(pid) for pid in processes)
        records_before, began = written(worker, names), time.perf_counter()
        time.sleep(args.seconds)
        records_after, elapsed = written(worker, names), time.perf_counter() - began
        cpu_used = sum(cpu_s(pid) for pid in processes) - cpu_before
        full = footprint(worker, names, jvm)
        unplaced = worker.herder.worker.metrics()["unplaced-task-count"] if worker.herder else -1
        for name in names:
            client.delete(f"/connectors/{name}")
    rate = (records_after - records_before) / elapsed
    print(f"{args.tasks} generator tasks at {args.rate:g} records/s each; {slots} Spark slots")
    print(f"all RUNNING after {one_each_s + shared_s:.1f} s ({one_each_s:.1f} s for the first {slots})")
    print(f"unplaced tasks: {unplaced}")
    print(f"records/s written: {rate:,.0f} of {args.tasks * args.rate:,.0f} asked for")
    print(f"CPU: {cpu_used / elapsed:.2f} cores for driver, JVM and task hosts together")
    print()
    print(
        f"{'memory (RSS, MB)':34}{'tasks':>6}{'hosts':>7}{'driver':>9}{'JVM':>9}{'hosts':>9}"
        f"{'total':>9}{'per task':>10}"
    )
    print(idle.line("baseline: idle worker", None))
    print(one_each.line("baseline: one task per slot", idle))
    print(full.line(f"{args.tasks} tasks, sharing hosts", idle))


if __name__ == "__main__":
    main()
