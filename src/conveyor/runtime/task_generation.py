"""KIP-618's checks around an exactly-once source task's producer: is the task still current, and still
this worker's?

A worker may stall between learning it can start a task and creating the task's transactional producer;
meanwhile the connector may get new task configs and a round of fencing that this producer escaped, or
the group may hand the task to another worker, whose producer this one would fence. So the task checks
the status topic before it creates its producer (a task another worker runs now is never fenced by a
stalled one), and once the producer exists it reads the config and status topics again and gives up if
the connector's task config generation moved on or another worker took the task over (Kafka's
`verifyTaskGenerationAndOwnership`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from conveyor.errors import ConnectError
from conveyor.log import Log
from conveyor.metrics.status import State
from conveyor.runtime.task_spec import TaskId, TaskOwner
from conveyor.runtime.worker_stores import worker_status_store
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import ConfigStore
from conveyor.storage.status_store import StatusStore


class StaleTaskGenerationError(ConnectError):
    """The connector generated new task configs after this task's start was decided."""


class RevokedTaskError(ConnectError):
    """The task was revoked from this worker after its start was decided."""


def config_reader(log: Log, configs_topic: str) -> ConfigStore:
    """The worker group's config topic, read to its end, for `verify_task_generation`; stop it after use.
    Opened before the producer's `init_transactions`, its check after it then reads only what came since."""
    store = ConfigStore(log, configs_topic, create_missing=False)
    _start_or_stop(store.start, store.stop)
    return store


def verify_task_generation(configs: ConfigStore, task: TaskId, expected_generation: int) -> None:
    """Raise `StaleTaskGenerationError` unless the connector's task configs are of `expected_generation`,
    as a started config reader finds them once it has read to the topic's end."""
    configs.read_to_end()
    current = configs.snapshot().task_config_generation(task.connector)
    if current != expected_generation:
        raise StaleTaskGenerationError(
            f"Cannot start task {task} since its connector has already generated a new set of task configs "
            f"(generation {current}, the task was assigned at generation {expected_generation})"
        )


def status_reader(log: Log, worker: WorkerConfig) -> StatusStore:
    """The worker group's status topic, read to its end, for `verify_task_ownership`; stop it after use."""
    store = worker_status_store(log, worker, create_missing=False)
    _start_or_stop(partial(store.start, writable=False), store.stop)
    return store


def _start_or_stop(start: Callable[[], None], stop: Callable[[], None]) -> None:
    """Start a reader, stopping it if its start fails: the caller gets no reader to stop."""
    try:
        start()
    except BaseException:
        stop()
        raise


def verify_task_ownership(statuses: StatusStore, task: TaskId, owner: TaskOwner) -> None:
    """Raise `RevokedTaskError` if the task's latest status says another worker holds it (any state but
    UNASSIGNED, which a worker also writes as it stops a task it gave up) at a later generation of the
    group than the one that assigned it to `owner`: the task has moved there."""
    statuses.read_to_end()
    status = statuses.task(task.connector, task.task)
    if (
        status is None
        or status.state == State.UNASSIGNED.value
        or status.worker_id == owner.worker_id
        or status.generation <= owner.generation
    ):
        return
    raise RevokedTaskError(
        f"Cannot start task {task} since it has already been revoked from this worker: worker "
        f"{status.worker_id} took it over at generation {status.generation} of the group (this worker was "
        f"assigned it at generation {owner.generation})"
    )
