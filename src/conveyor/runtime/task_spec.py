"""The description of one task instance, shipped from the worker to wherever the task runs."""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field

from conveyor.settings.worker_config import WorkerConfig


class TaskKind(enum.StrEnum):
    """Whether a task reads from an external system into the log or writes from the log out."""

    SOURCE = "source"
    SINK = "sink"


@dataclass(frozen=True)
class TaskId:
    """A connector's task, numbered from 0 as in Kafka Connect."""

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


@dataclass(frozen=True)
class TaskOwner:
    """The worker a group assigned a task to, and the group generation of that assignment."""

    worker_id: str
    generation: int


@dataclass(frozen=True)
class TaskSpec:
    """Everything a task loop needs to run: its configs, the log, and which incarnation it is.

    `attempt` changes at every (re)start of the task, so that the worker can tell a current
    incarnation from a zombie one on the control channel.
    """

    id: TaskId
    kind: TaskKind
    connector_config: dict[str, str]
    task_config: dict[str, str]
    worker_config: WorkerConfig
    task_config_generation: int | None = None
    """For an exactly-once source task in a worker group: the connector's task config generation this
    task was started for; once its producer exists, the task checks that no newer one appeared (KIP-618)."""
    owner: TaskOwner | None = None
    """For an exactly-once source task in a worker group: the worker that started it and the group
    generation it was assigned at; the task refuses to start once another worker took it over (KIP-618)."""
    attempt: str = field(default_factory=lambda: uuid.uuid4().hex)
