"""What a worker uses of its machine: memory and CPU of its process tree, and its Spark slots.

The process tree is the worker's Python driver, Spark's JVM and the executors' Python daemons and
workers: what `ps` shows under the worker. Memory is their proportional set size summed (PSS: a page
shared by several counts once in all); CPU is the share of one core they used since the previous
reading (the first reading: since the worker started).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conveyor.metrics.process_memory import resident_bytes

PROC = Path("/proc")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class SlotUsage:
    """Spark task slots of the worker: how many, how many run task hosts, tasks waiting for room."""

    total: int
    in_use: int
    waiting_tasks: int


@dataclass(frozen=True)
class WorkerUsage:
    """One worker as the console's workers view shows it."""

    worker_id: str
    memory_bytes: int | None
    cpu_percent: float | None
    processes: int
    slots: SlotUsage | None
    spark_ui_url: str | None
    error: str | None = None
    """Why the rest is unknown: the worker did not answer its peer."""

    @classmethod
    def unknown(cls, worker_id: str, error: str) -> WorkerUsage:
        return cls(worker_id, None, None, 0, None, None, error)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> WorkerUsage:
        """The usage a peer sent (raises KeyError, TypeError or ValueError if it is not one)."""
        slots = body.get("slots")
        return cls(
            str(body["worker_id"]),
            None if body.get("memory_bytes") is None else int(body["memory_bytes"]),
            None if body.get("cpu_percent") is None else float(body["cpu_percent"]),
            int(body.get("processes") or 0),
            None
            if slots is None
            else SlotUsage(int(slots["total"]), int(slots["in_use"]), int(slots["waiting_tasks"])),
            None if body.get("spark_ui_url") is None else str(body["spark_ui_url"]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "worker_id": self.worker_id,
            "error": self.error,
            "memory_bytes": self.memory_bytes,
            "cpu_percent": self.cpu_percent,
            "processes": self.processes,
            "slots": None
            if self.slots is None
            else {
                "total": self.slots.total,
                "in_use": self.slots.in_use,
                "waiting_tasks": self.slots.waiting_tasks,
            },
            "spark_ui_url": self.spark_ui_url,
        }


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of `/proc/<pid>/stat` after the command name (which may hold spaces)."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def process_tree(root: int) -> list[int]:
    """`root` and every process descending from it, found through the parent ids in `/proc`."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, pending = [], [root]
    while pending:
        pid = pending.pop()
        tree.append(pid)
        pending.extend(children.get(pid, []))
    return tree


def cpu_seconds(pid: int) -> float:
    """CPU seconds `pid` has used, user and system (0 once it is gone)."""
    fields = _stat_fields(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def memory_bytes(pid: int) -> int:
    """The process's proportional set size (shared pages split among their sharers), else its resident
    set where the kernel has no `smaps_rollup` (0 once it is gone)."""
    try:
        for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return resident_bytes(pid) or 0


class ProcessTreeUsage:
    """Reads the memory and CPU of a process tree; each reading's CPU covers the time since the last."""

    def __init__(self, root: int | None = None) -> None:
        self.root = os.getpid() if root is None else root
        self._lock = threading.Lock()
        self._last: tuple[float, float] | None = None

    def read(self) -> tuple[int | None, float | None, int]:
        """Resident bytes, CPU percent of one core, and the number of processes (None: no /proc here)."""
        if not PROC.is_dir():
            return None, None, 1
        pids = process_tree(self.root)
        memory = sum(memory_bytes(pid) for pid in pids)
        cpu = sum(cpu_seconds(pid) for pid in pids)
        now = time.monotonic()
        with self._lock:
            if self._last is None:
                started = _process_start_s(self.root)
                previous = (now - started, 0.0) if started is not None else (now, cpu)
            else:
                previous = self._last
            self._last = (now, cpu)
        elapsed = now - previous[0]
        percent = max(0.0, cpu - previous[1]) / elapsed * 100 if elapsed > 0 else None
        return memory, percent, len(pids)


def _process_start_s(pid: int) -> float | None:
    """How many seconds ago `pid` started."""
    fields = _stat_fields(pid)
    try:
        uptime = float((PROC / "uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    if fields is None:
        return None
    return max(0.0, uptime - int(fields[19]) / CLOCK_TICKS)
