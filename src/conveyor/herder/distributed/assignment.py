"""What both Connect assignors share: the leader's config snapshot and the shape of their result."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from conveyor.herder.distributed.protocol import CONFIG_MISMATCH, ConnectAssignment, WorkerMetadata
from conveyor.runtime.task_spec import TaskId
from conveyor.storage.cluster_config_state import ClusterConfigState


def java_order(text: str) -> bytes:
    """A sort key that orders strings as Java's `String.compareTo` does (by UTF-16 code unit)."""
    return text.encode("utf-16-be", "surrogatepass")


def task_order(task: TaskId) -> tuple[bytes, int]:
    """Kafka's `ConnectorTaskId` order: by connector name, then task number."""
    return java_order(task.connector), task.task


@dataclass(frozen=True)
class ConnectorsAndTasks:
    """Some connectors and tasks, each once, in a stable order."""

    connectors: tuple[str, ...] = ()
    tasks: tuple[TaskId, ...] = ()

    @staticmethod
    def of(connectors: Iterable[str] = (), tasks: Iterable[TaskId] = ()) -> ConnectorsAndTasks:
        return ConnectorsAndTasks(tuple(dict.fromkeys(connectors)), tuple(dict.fromkeys(tasks)))

    @staticmethod
    def union(parts: Iterable[ConnectorsAndTasks]) -> ConnectorsAndTasks:
        listed = list(parts)
        return ConnectorsAndTasks.of(
            (c for part in listed for c in part.connectors), (t for part in listed for t in part.tasks)
        )

    def minus(self, *others: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What is here and in none of `others`, sorted (as Kafka's `diff` over tree sets)."""
        connectors = set(self.connectors).difference(*(other.connectors for other in others))
        tasks = set(self.tasks).difference(*(other.tasks for other in others))
        return ConnectorsAndTasks(
            tuple(sorted(connectors, key=java_order)), tuple(sorted(tasks, key=task_order))
        )

    def intersection(self, other: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What is here and in `other`, in this one's order."""
        connectors, tasks = set(other.connectors), set(other.tasks)
        return ConnectorsAndTasks(
            tuple(c for c in self.connectors if c in connectors), tuple(t for t in self.tasks if t in tasks)
        )

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks


def current_work(metadata: WorkerMetadata) -> ConnectorsAndTasks:
    """What a member says it runs (nothing for a new member or version 0 metadata)."""
    if metadata.assignment is None:
        return ConnectorsAndTasks()
    return ConnectorsAndTasks.of(metadata.assignment.connectors, metadata.assignment.tasks)


def configured_tasks(config: ClusterConfigState, connector: str) -> list[TaskId]:
    """The connector's committed tasks, none while it is inconsistent (Kafka's `ClusterConfigState.tasks`)."""
    if connector in config.inconsistent_connectors:
        return []
    return [TaskId(connector, number) for number in range(config.task_count(connector))]


def configured_work(config: ClusterConfigState) -> ConnectorsAndTasks:
    """Every configured connector and committed task, sorted."""
    connectors = sorted(config.connectors(), key=java_order)
    return ConnectorsAndTasks(
        tuple(connectors),
        tuple(task for connector in connectors for task in configured_tasks(config, connector)),
    )


def max_config_offset(members: Mapping[str, WorkerMetadata]) -> int:
    """The newest config offset any member has read: the offset the assignment is made at."""
    return max(metadata.config_offset for metadata in members.values())


def leader_config(
    max_offset: int,
    config: ClusterConfigState,
    read_fresh_config: Callable[[], ClusterConfigState] | None,
) -> tuple[ClusterConfigState, int] | None:
    """The leader's config caught up to `max_offset`, and the offset to assign at; None if the leader is
    behind even after reading a fresh snapshot (Kafka's `ensureLeaderConfig`: members then get
    CONFIG_MISMATCH and rejoin)."""
    if config.offset >= max_offset:
        return config, max_offset
    if read_fresh_config is None:
        return None
    fresh = read_fresh_config()
    return (fresh, fresh.offset) if fresh.offset >= max_offset else None


@dataclass
class GroupAssignment:
    """The leader's result: what to send each member, and (the leader's state) who runs what afterwards.

    `config` is the snapshot the assignment was made from; it may be fresher than the one passed in.
    """

    assignments: dict[str, ConnectAssignment]
    config: ClusterConfigState | None
    all_assigned: dict[str, ConnectorsAndTasks] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(assignment.failed for assignment in self.assignments.values())


@dataclass(frozen=True)
class LeaderSnapshot:
    """The config an assignment is made from, the config offset it is made at, and the leader's URL."""

    config: ClusterConfigState
    offset: int
    leader_url: str


def leader_snapshot(
    leader_id: str,
    members: Mapping[str, WorkerMetadata],
    config: ClusterConfigState,
    read_fresh_config: Callable[[], ClusterConfigState] | None,
) -> LeaderSnapshot | GroupAssignment:
    """Both assignors' first step: the leader's snapshot caught up to the newest member offset, or, when it
    cannot get there, the assignment that tells every member CONFIG_MISMATCH and nothing else."""
    max_offset = max_config_offset(members)
    leader_url = members[leader_id].url
    caught_up = leader_config(max_offset, config, read_fresh_config)
    if caught_up is None:
        return GroupAssignment(
            {
                member: ConnectAssignment(leader_id, leader_url, max_offset, error=CONFIG_MISMATCH)
                for member in members
            },
            config=None,
        )
    snapshot, offset = caught_up
    return LeaderSnapshot(snapshot, offset, leader_url)
