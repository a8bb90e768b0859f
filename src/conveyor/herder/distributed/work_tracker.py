"""The work this worker runs, as Kafka's `DistributedHerder` tracks it in its `startWork`,
`startTask` and `stopWorkers`: what the group assigned to it, what of that it started, and with which
task configs each task started.

It owns the bookkeeping (`owned`, `running`, each task's started task config generation) and the
threads connector and task code is called on (a lane per connector, a pool for starts and stops), so
that every start and stop goes through one place: a start decided on another thread (an exactly-once
task waiting for its zombie fencing, KIP-618) checks `running` under the lock a release takes, and never
starts work released meanwhile. What to run comes from the rebalance listener; when is the tick's call.
"""

from __future__ import annotations

import functools
import logging
import threading
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from conveyor.errors import BadRequestError, ConnectError, NotFoundError
from conveyor.herder.distributed.assignment import ConnectorsAndTasks
from conveyor.herder.distributed.connector_lanes import ConnectorLanes
from conveyor.herder.distributed.errors import NO_LEADER
from conveyor.herder.distributed.internal_client import InternalRequestError
from conveyor.metrics.status import State
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_spec import TaskId
from conveyor.runtime.worker import ConnectorType
from conveyor.storage import Status
from conveyor.storage.errors import StorageError

if TYPE_CHECKING:
    from conveyor.herder.distributed.herder import DistributedHerder

logger = logging.getLogger(__name__)

START_STOP_THREADS = 8
FENCING_RETRY_S = 0.25
FENCING_RETRY_MAX_S = 10.0
"""The first and the longest wait before a task start whose zombie fencing failed tries again."""


class WorkTracker:
    """The connectors and tasks this worker owns and runs, and their starts and stops."""

    def __init__(self, herder: DistributedHerder) -> None:
        self._herder = herder
        self.pool = ThreadPoolExecutor(START_STOP_THREADS, thread_name_prefix="herder-start-stop")
        self.lanes = ConnectorLanes()
        """Where connector code is called: off the work thread, in order per connector."""
        self.owned = ConnectorsAndTasks()
        """Everything the group has assigned to this worker (under cooperative assignment, the sum of the
        increments less revocations): what it tells the leader it runs."""
        self.running = ConnectorsAndTasks()
        """What this worker has actually started of `owned`."""
        self._started_generations: dict[TaskId, int | None] = {}
        """The task config generation each task was last started with, to tell a task that must restart
        for new task configs from one that started with them already."""
        self._start_lock = threading.Lock()
        self._fencing_starts: dict[TaskId, int] = {}
        """How many times each exactly-once task's start (with its fencing round) began: a retry left over
        from an earlier start sees a newer count and gives up."""

    def start(self) -> None:
        """Start what this worker owns and does not run yet (Kafka's `startWork`)."""
        starting = self.owned.minus(self.running)
        self.running = self.owned
        snapshot = self._herder._config_state
        logger.info("Starting connectors and tasks using config offset %d", snapshot.offset)
        jobs: list[Future[None]] = []
        for name in starting.connectors:
            self.lanes.submit(name, functools.partial(self.start_connector_logged, name))
        for task in starting.tasks:
            if self.needs_fencing_first(task):
                self.start_exactly_once_task(task)
                continue
            jobs.append(self.pool.submit(self._start_task, task))
        for job in jobs:
            job.result()
        logger.info("Finished starting connectors and tasks")

    def release(self, work: ConnectorsAndTasks) -> None:
        """Stop running `work` and forget it. A start decided on another thread (an exactly-once task
        waiting for its fencing) checks `running` under the same lock, so it never starts work that was
        released meanwhile."""
        with self._start_lock:
            stopping = self.running.intersection(work)
            self.running = self.running.minus(work)
        self.stop(stopping)

    def give_up_all(self) -> None:
        """Stop everything this worker runs and own nothing: its assignment is over (a revocation under
        eager rebalancing, a worker out of the group, or one that cannot catch up with the config topic)."""
        self.release(self.running)
        self.owned = ConnectorsAndTasks()

    def stop(self, work: ConnectorsAndTasks) -> None:
        """Stop connectors and tasks in parallel, then make sure their statuses are written. A connector
        stuck in a call is stopped waiting for at once (its stop then waits at most
        `task.shutdown.graceful.timeout.ms` for a `stop()` that does not return); each stop is named
        while it runs (a stop that never ends is then named by the health check and at shutdown)."""
        jobs: list[Future[None]] = []
        for name in work.connectors:
            self._herder.worker.supersede(name)
            jobs.append(self.lanes.submit(name, functools.partial(self._stop_connector, name)))
        if work.tasks:
            jobs.append(self.pool.submit(self._stop_tasks, list(work.tasks)))
        futures.wait(jobs)
        unassigned = self._status(State.UNASSIGNED)
        self._put_statuses([(name, None, unassigned) for name in work.connectors])

    def _stop_connector(self, name: str) -> None:
        with self._herder._stages.stage(f"stopping connector {name}"):
            self._herder.worker.stop_connector(name)

    def _stop_tasks(self, tasks: list[TaskId]) -> None:
        """Stop tasks and write them UNASSIGNED, named while they stop (a stop that never ends is then
        named by the health check and at shutdown)."""
        if not tasks:
            return
        with self._herder._stages.stage(f"stopping tasks {', '.join(sorted(str(t) for t in tasks))}"):
            self._herder.worker.stop_tasks(tasks)
        unassigned = self._status(State.UNASSIGNED)
        self._put_statuses([(task.connector, task.task, unassigned) for task in tasks])

    def _put_statuses(self, statuses: list[tuple[str, int | None, Status]]) -> None:
        """Write statuses the herder decides (UNASSIGNED after a stop); if the status topic is out of reach,
        the worker writes them again with its own once it answers, and the herder goes on."""
        try:
            self._herder.statuses.put_all_safe(statuses)
        except StorageError as error:
            logger.warning("Could not write %d statuses; writing them again later: %s", len(statuses), error)
            for connector, task, status in statuses:
                self._herder.worker.keep_status(connector, task, status)

    def _status(self, state: State, trace: str | None = None) -> Status:
        return Status(state.value, self._herder.worker_id, trace, self._herder._generation)

    def start_connector_logged(self, name: str) -> bool:
        try:
            return self._start_connector(name)
        except Exception as error:
            logger.error(
                "Couldn't start connector %s; it will not run until reconfigured", name, exc_info=error
            )
            self._herder.worker.fail_connector(name, error)
            return False

    def _start_connector(self, name: str) -> bool:
        """Start the connector if it is still this worker's (a start queued on its lane may find it
        released meanwhile)."""
        snapshot = self._herder._config_state
        config = snapshot.connector_config(name)
        if config is None or name not in self.running.connectors:
            return False
        target = TargetState(snapshot.target_state(name))
        started = self._herder.worker.start_connector(name, config, target)
        if started and target is TargetState.STARTED:
            self._herder._requests.add(lambda: self._herder._reconfigure_with_retry(name))
            self._herder.wakeup()
        return started

    def _start_task(self, task: TaskId) -> None:
        if task not in self.running.tasks:
            return
        snapshot = self._herder._config_state
        config = snapshot.connector_config(task.connector)
        task_config = snapshot.task_config(task.connector, task.task)
        if config is None or task_config is None:
            logger.warning("Not starting task %s: its configs are gone", task)
            return
        generation = snapshot.task_config_generation(task.connector)
        self._started_generations[task] = generation
        self._herder.worker.start_task(
            task,
            config,
            task_config,
            TargetState(snapshot.target_state(task.connector)),
            task_config_generation=generation if self.needs_fencing_first(task) else None,
        )

    def needs_fencing_first(self, task: TaskId) -> bool:
        """KIP-618: with exactly-once support on, a source task starts only after its connector's older
        task producers are fenced."""
        if not self._herder.config.exactly_once_source_enabled:
            return False
        config = self._herder._config_state.connector_config(task.connector)
        return config is not None and self._herder._type_of(config) is ConnectorType.SOURCE

    def start_task_fenced_if_needed(self, task: TaskId) -> None:
        """On the work thread: start a task that is not running, fencing first if it needs it."""
        if self.needs_fencing_first(task):
            self.start_exactly_once_task(task)
        else:
            self.pool.submit(self._start_task, task)

    def start_exactly_once_task(self, task: TaskId, attempt: int = 0) -> None:
        """On the work thread: fence the connector's older task producers (the leader itself, a follower
        by asking the leader), then start the task. A new start supersedes the retries of an earlier one."""
        if attempt == 0:
            self._fencing_starts[task] = self._fencing_starts.get(task, 0) + 1
        generation = self._herder._config_state.task_config_generation(task.connector)
        if self._herder.is_leader():
            self._start_exactly_once_task_as_leader(task, generation, attempt)
        else:
            self.pool.submit(self._start_exactly_once_task_as_follower, task, generation, attempt)

    def _start_exactly_once_task_as_leader(self, task: TaskId, generation: int | None, attempt: int) -> None:
        try:
            self._herder._leader.fence_zombies(task.connector)
        except Exception as error:
            self._fencing_failed(task, generation, attempt, error)
            return
        self.pool.submit(self._start_task, task)

    def _start_exactly_once_task_as_follower(
        self, task: TaskId, generation: int | None, attempt: int
    ) -> None:
        """Ask the leader to fence first; runs on the start pool so the work thread never waits on it."""
        assignment = self._herder._assignment
        try:
            if assignment is None:
                raise ConnectError(NO_LEADER)
            self._herder.internal.fence_zombies(assignment.leader_url, task.connector)
        except Exception as error:
            self._fencing_failed(task, generation, attempt, error)
            return
        with self._start_lock:
            if task in self.running.tasks:
                self._start_task(task)

    def _fencing_failed(self, task: TaskId, generation: int | None, attempt: int, error: Exception) -> None:
        """A connector that is gone or not a source fails the task; any other failure (the leader
        unreachable or moving, the log unavailable, a fenced leader) is retried with a growing backoff for
        as long as the task is this worker's and its connector's task configs stand (KIP-618)."""
        if _refused_for_good(error):
            self._fail_task_start(task, error)
            return
        delay_s = min(FENCING_RETRY_MAX_S, FENCING_RETRY_S * 2**attempt)
        logger.warning(
            "Could not fence zombies before starting task %s (attempt %d); retrying in %.1f s: %s",
            task,
            attempt + 1,
            delay_s,
            error,
        )
        waiting = self._status(
            State.UNASSIGNED,
            f"Waiting to fence the zombie tasks of connector {task.connector} before starting; retrying "
            f"in {delay_s:.1f} s after: {error}",
        )
        self._put_statuses([(task.connector, task.task, waiting)])

        start = self._fencing_starts.get(task)

        def retry() -> None:
            if (
                self._fencing_starts.get(task) != start
                or task not in self.running.tasks
                or self._herder.worker.task_state(task) is not None
                or self._herder.configs.snapshot().task_config_generation(task.connector) != generation
            ):
                return
            self.start_exactly_once_task(task, attempt + 1)

        self._herder._requests.add(
            retry, delay_s, f"fencing the zombie tasks of the connector {task.connector}"
        )
        self._herder.wakeup()

    def _fail_task_start(self, task: TaskId, error: Exception) -> None:
        logger.error("Could not fence zombies before starting task %s", task, exc_info=error)
        self._herder.statuses.put_task(
            task.connector,
            task.task,
            self._status(
                State.FAILED, f"Failed to fence zombie tasks of connector {task.connector}: {error}"
            ),
        )

    def restart_on_lane(self, name: str, start: bool = True) -> Future[bool]:
        """Stop the connector (at once if it is stuck in a call) and, if `start`, start it again: on its
        lane, so that the work thread never waits on connector code. True once it runs again."""
        self._herder.worker.supersede(name)

        def restart() -> bool:
            self._herder.worker.stop_connector(name)
            return start and self.start_connector_logged(name)

        return self.lanes.submit(name, restart)

    def release_now(self, work: ConnectorsAndTasks) -> None:
        """`release` without the start and stop pool, which a stuck work thread may hold."""
        with self._start_lock:
            stopping = self.running.intersection(work)
            self.running = self.running.minus(work)
        self._stop_tasks(list(stopping.tasks))

    def stop_reconfigured_tasks(self, connectors: set[str]) -> bool:
        """Stop the local tasks of connectors with new task configs before rejoining: they start again
        with the new configs once the rebalance settles, if they are still this worker's (Kafka's
        `processTaskConfigUpdatesWithIncrementalCooperative`; for exactly-once sources this is KIP-618's
        preemptive stop). A task started with its connector's latest task configs already (the notice
        was read while catching up for the assignment that started it) keeps running. True if any
        task stopped."""
        snapshot = self._herder._config_state
        stopping = ConnectorsAndTasks.of(
            tasks=(
                t
                for t in self.running.tasks
                if t.connector in connectors
                and self._started_generations.get(t) != snapshot.task_config_generation(t.connector)
            )
        )
        if stopping.is_empty():
            return False
        logger.info(
            "Stopping tasks %s, whose connector has new task configs", [str(t) for t in stopping.tasks]
        )
        self.release(stopping)
        return True


def _refused_for_good(error: Exception) -> bool:
    """A fencing request that can never succeed as things stand: the connector is gone or not a source."""
    if isinstance(error, NotFoundError | BadRequestError):
        return True
    return isinstance(error, InternalRequestError) and error.status in (400, 404)
