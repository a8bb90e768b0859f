"""Runs task loops in long-running Spark jobs: task hosts, each one partition on a Spark executor.

A host takes one Spark task slot for as long as it runs tasks. By default (`TaskPlacement.SPREAD`) the
runner gives every host one task before any host a second (so up to the slot count each task has its
own Python process, as an ordinary Spark task would), then shares hosts among up to `tasks_per_slot`
tasks each, as threads: light tasks (a few records a second) then cost a thread and a connection rather
than a process. `TaskPlacement.CORES` gives a new task the least busy host, and starts another host, up
to one per core of the machine (`spread_hosts`), only when every host it has keeps a core busy
(`conveyor.spark.host_cpu`) or already runs a task of the same connector: idle connectors share one
process, busy tasks and the tasks of one connector (started together, before any is busy, and meant to
run in parallel) get a core each; then it fills those hosts up to `tasks_per_slot` before starting
another. With `TaskPlacement.PACK` it fills a host up to `tasks_per_slot` before starting another. A
task beyond `slots * tasks_per_slot` waits, UNASSIGNED with the reason, until a place frees.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import SparkSession

from conveyor.metrics.worker_usage import SlotUsage
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskSpec
from conveyor.settings.worker_config import DEFAULT_TASKS_PER_SLOT, TaskPlacement
from conveyor.spark.control_channel import ControlServer
from conveyor.spark.task_partition import HostLaunch, run_task_host, spec_message

logger = logging.getLogger(__name__)


def spark_error_summary(error: BaseException) -> str:
    """The line of a Spark job's error that says what happened (`SparkException: Job 2 cancelled ...`), not
    Py4J's `An error occurred while calling ...` nor the Java stack; the whole text goes to the trace."""
    lines = [line.strip().removeprefix(": ").strip() for line in str(error).splitlines()]
    said = [
        line for line in lines if line and not line.startswith(("at ", "An error occurred while calling"))
    ]
    return said[0] if said else type(error).__name__


@dataclass
class _Placed:
    """One task incarnation: where it runs (None while it waits) and whether it has ended."""

    spec: TaskSpec
    events: TaskEvents
    host: _Host | None = None
    ended: threading.Event = field(default_factory=threading.Event)


@dataclass(eq=False)
class _Host:
    name: str
    tasks: dict[TaskId, _Placed] = field(default_factory=dict)
    thread: threading.Thread | None = None

    @property
    def job_group(self) -> str:
        return f"conveyor-host-{self.name}"


def spark_slots(spark: SparkSession) -> int:
    """How many Spark tasks can run at once: the default parallelism over the CPUs each task takes."""
    cpus = int(spark.conf.get("spark.task.cpus", "1") or "1")
    return max(1, spark.sparkContext.defaultParallelism // max(cpus, 1))


def machine_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


def spread_hosts(spark: SparkSession, slots: int, placement: TaskPlacement) -> int:
    """How many hosts get one task each before any gets a second: every slot's (spread), one per core of
    the machine with a local master and every slot's on a cluster, whose slots are its executors' cores
    (cores), or one (pack)."""
    if placement is TaskPlacement.PACK:
        return 1
    if placement is TaskPlacement.CORES and (spark.sparkContext.master or "").startswith("local"):
        return max(1, min(slots, machine_cores()))
    return slots


class TaskJobRunner(TaskRunner):
    """Places task loops on task hosts and supervises them through the control channel.

    The control channel listens on `control_host` and `control_port` (0: any free port); executors dial
    `advertised_control_host` (the driver's host name, on a cluster) when it is given. A stop goes through
    the control channel first; a task that does not end within the graceful timeout has its host's Spark
    job cancelled if it is the host's only task, and is abandoned otherwise (a thread cannot be killed; it
    is told it is superseded and ends when it next looks). Each host watches its resident memory against
    `memory_limit_bytes` (`task.memory.limit`; None for no limit).
    """

    def __init__(
        self,
        spark: SparkSession,
        control_host: str = "127.0.0.1",
        heartbeat_s: float = 1.0,
        lease_s: float = 10.0,
        slots: int | None = None,
        tasks_per_slot: int = DEFAULT_TASKS_PER_SLOT,
        advertised_control_host: str | None = None,
        control_port: int = 0,
        placement: TaskPlacement = TaskPlacement.SPREAD,
        memory_limit_bytes: int | None = None,
    ) -> None:
        self._spark = spark
        self._memory_limit_bytes = memory_limit_bytes
        self._control = ControlServer(
            control_host,
            control_port,
            on_state_report=self._on_state_report,
            on_task_end=self._on_task_end,
            on_host=self._on_host,
        )
        self._control.start()
        bound_host, port = self._control.address
        self.control_address = (advertised_control_host or bound_host, port)
        """Where executors dial the control channel (a wildcard bind address is no place to dial)."""
        self._heartbeat_s = heartbeat_s
        self._lease_s = lease_s
        self.slots = slots if slots is not None else spark_slots(spark)
        self.tasks_per_slot = max(1, tasks_per_slot)
        self.placement = placement
        self.spread_hosts = spread_hosts(spark, self.slots, placement)
        self._placed: dict[TaskId, _Placed] = {}
        self._waiting: list[_Placed] = []
        self._hosts: list[_Host] = []
        self._lock = threading.Lock()

    @property
    def capacity(self) -> int:
        return self.slots * self.tasks_per_slot

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        self._control.register(str(spec.id), spec.attempt)
        placed = _Placed(spec, events)
        with self._lock:
            self._placed[spec.id] = placed
            host, new = self._place(placed)
            if host is None:
                self._waiting.append(placed)
        if host is None:
            events.unplaced(spec, self._unplaced_reason())
        elif new:
            self._start_host(host)
        else:
            self._hand(host, placed)

    def _place(self, placed: _Placed) -> tuple[_Host | None, bool]:
        """Choose the task's host (under the lock). Spread: an idle one, a new one while fewer than
        `spread_hosts` run, else the least loaded one with room, else a new one while slots are free.
        Cores: the same, but with a host that keeps no core busy and runs no task of the same connector
        first, and a new one while fewer than `spread_hosts` run only when that host does either. Pack:
        the most loaded one with room, else a new one while slots are free. None if every place is taken;
        True if the host is new."""
        with_room = [h for h in self._hosts if len(h.tasks) < self.tasks_per_slot]
        host: _Host | None
        if self.placement is TaskPlacement.PACK:
            host = max(with_room, key=lambda h: len(h.tasks), default=None)
            wants_new = host is None
        elif self.placement is TaskPlacement.CORES:
            connector = placed.spec.id.connector
            crowded = {
                h.name: self._control.host_busy(h.name) or any(t.connector == connector for t in h.tasks)
                for h in with_room
            }
            host = min(with_room, key=lambda h: (crowded[h.name], len(h.tasks)), default=None)
            wants_new = host is None or (
                bool(host.tasks) and crowded[host.name] and len(self._hosts) < self.spread_hosts
            )
        else:
            host = min(with_room, key=lambda h: len(h.tasks), default=None)
            wants_new = host is None or (bool(host.tasks) and len(self._hosts) < self.spread_hosts)
        new = False
        if wants_new and len(self._hosts) < self.slots:
            host, new = _Host(uuid.uuid4().hex[:12]), True
            self._hosts.append(host)
        if host is None:
            return None, False
        host.tasks[placed.spec.id] = placed
        placed.host = host
        return host, new

    def _unplaced_reason(self) -> str:
        return (
            f"Waiting for room to run: all {self.slots} Spark task slots of this worker run "
            f"{self.tasks_per_slot} tasks each (raise the slots of spark.master, or tasks.per.slot)"
        )

    def _start_host(self, host: _Host) -> None:
        launch = HostLaunch(
            host.name, self.control_address, self._heartbeat_s, self._lease_s, self._memory_limit_bytes
        )
        host.thread = threading.Thread(
            target=self._run_host, args=(host, launch), name=f"spark-task-host-{host.name}", daemon=True
        )
        host.thread.start()

    def _hand(self, host: _Host, placed: _Placed) -> None:
        """Send the task to its host; a host not connected yet gets it when it connects."""
        self._control.send_to_host(host.name, {"run": spec_message(placed.spec)})

    def _on_host(self, name: str) -> None:
        with self._lock:
            host = next((h for h in self._hosts if h.name == name), None)
            tasks = list(host.tasks.values()) if host is not None else []
        if host is None:
            self._control.send_to_host(name, {"end": True})
            return
        for placed in tasks:
            self._hand(host, placed)

    def _run_host(self, host: _Host, launch: HostLaunch) -> None:
        context = self._spark.sparkContext
        outcome: TaskOutcome
        try:
            context.setJobGroup(host.job_group, f"Conveyor task host {host.name}", interruptOnCancel=True)
            context.parallelize([launch], 1).mapPartitions(run_task_host).collect()
            outcome = TaskOutcome(True, f"Task host {host.name} ended while running the task")
        except Exception as exc:
            summary = spark_error_summary(exc)
            outcome = TaskOutcome(True, f"Spark job of task host {host.name} failed: {summary}", str(exc))
        with self._lock:
            if host in self._hosts:
                self._hosts.remove(host)
            orphans = list(host.tasks.values())
            host.tasks.clear()
        self._control.forget_host(host.name)
        for placed in orphans:
            self._end(placed, outcome)

    def _on_task_end(self, task: str, attempt: str, fields: Any) -> None:
        with self._lock:
            placed = next((p for p in self._placed.values() if str(p.spec.id) == task), None)
        if placed is not None and placed.spec.attempt == attempt:
            outcome = TaskOutcome(bool(fields.get("failed")), fields.get("error"), fields.get("trace"))
            self._end(placed, outcome)

    def _end(self, placed: _Placed, outcome: TaskOutcome) -> None:
        """Forget an ended task, give its place to a waiting one, end its host if it has no task left."""
        handed: list[tuple[_Host, _Placed, bool]] = []
        ended_host: _Host | None = None
        with self._lock:
            if placed.ended.is_set():
                return
            placed.ended.set()
            if self._placed.get(placed.spec.id) is placed:
                del self._placed[placed.spec.id]
            if placed in self._waiting:
                self._waiting.remove(placed)
            host = placed.host
            if host is not None:
                host.tasks.pop(placed.spec.id, None)
            while self._waiting:
                chosen, new = self._place(self._waiting[0])
                if chosen is None:
                    break
                handed.append((chosen, self._waiting.pop(0), new))
            if host is not None and not host.tasks and host in self._hosts:
                self._hosts.remove(host)
                ended_host = host
        if ended_host is not None:
            self._control.send_to_host(ended_host.name, {"end": True})
        for chosen, waiting, new in handed:
            if new:
                self._start_host(chosen)
            else:
                self._hand(chosen, waiting)
        placed.events.exited(placed.spec, outcome)

    def _on_state_report(self, task: str, attempt: str, state: str) -> None:
        with self._lock:
            placed = next((p for p in self._placed.values() if str(p.spec.id) == task), None)
        if placed is not None and placed.spec.attempt == attempt:
            placed.events.reported(placed.spec, state)

    def set_target(self, task: TaskId, state: TargetState) -> None:
        self._control.set_target(str(task), state)

    def stop(self, task: TaskId, timeout_s: float) -> bool:
        with self._lock:
            placed = self._placed.get(task)
        if placed is None:
            return True
        if placed.host is None:
            self._end(placed, TaskOutcome.stopped())
            return True
        self._control.set_target(str(task), TargetState.STOPPED)
        if placed.ended.wait(timeout_s):
            return True
        with self._lock:
            host = placed.host
            alone = host is not None and list(host.tasks) == [task]
            if alone and host in self._hosts:
                self._hosts.remove(host)
        self._control.forget(str(task))
        if alone and host is not None:
            logger.warning("task %s did not stop within %.1f s; cancelling its Spark job", task, timeout_s)
            self._spark.sparkContext.cancelJobGroup(host.job_group)
            if host.thread is not None:
                host.thread.join(timeout_s)
        else:
            logger.warning("task %s did not stop within %.1f s; abandoning its thread", task, timeout_s)
        self._end(placed, TaskOutcome(True, f"Task {task} did not stop within {timeout_s:.1f} s"))
        return False

    def metrics(self, task: TaskId) -> dict[str, Any]:
        """The task's latest counters; ``unplaced: 1`` while it waits for room to run."""
        with self._lock:
            placed = self._placed.get(task)
            if placed is not None and placed.host is None:
                return {"unplaced": 1}
        state = self._control.state(str(task))
        return state.metrics if state else {}

    def slot_usage(self) -> SlotUsage:
        with self._lock:
            return SlotUsage(self.slots, len(self._hosts), len(self._waiting))

    def busy_hosts(self) -> int:
        """How many hosts keep a core busy (`conveyor.spark.host_cpu`)."""
        with self._lock:
            hosts = [host.name for host in self._hosts]
        return sum(self._control.host_busy(host) for host in hosts)

    def unplaced(self) -> int:
        """How many tasks wait for room to run."""
        with self._lock:
            return len(self._waiting)

    def close(self) -> None:
        with self._lock:
            tasks = list(self._placed)
        for task in tasks:
            self.stop(task, 5.0)
        with self._lock:
            hosts = list(self._hosts)
        for host in hosts:
            self._control.send_to_host(host.name, {"end": True})
        self._control.close()
