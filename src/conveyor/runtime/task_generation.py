"""KIP-618's check after an exactly-once source task has created its producer: is it still current?

A worker may stall between learning it can start a task and creating the task's transactional producer;
meanwhile the connector may get new task configs and a round of fencing that this producer escaped. So,
once the producer exists, the task reads the config topic to its end and gives up if the connector's
task config generation moved on (Kafka's `verifyTaskGenerationAndOwnership`).
"""

from __future__ import annotations

from conveyor.errors import ConnectError
from conveyor.log import Log
from conveyor.runtime.task_spec import TaskId
from conveyor.storage import ConfigStore


class StaleTaskGenerationError(ConnectError):
    """The connector generated new task configs after this task's start was decided."""


def verify_task_generation(log: Log, configs_topic: str, task: TaskId, expected_generation: int) -> None:
    """Raise `StaleTaskGenerationError` unless the connector's task configs are of `expected_generation`."""
    store = ConfigStore(log, configs_topic)
    try:
        store.start()
        current = store.snapshot().task_config_generation(task.connector)
    finally:
        store.stop()
    if current != expected_generation:
        raise StaleTaskGenerationError(
            f"Cannot start task {task} since its connector has already generated a new set of task configs "
            f"(generation {current}, the task was assigned at generation {expected_generation})"
        )
