"""Building blocks for the assignor tests: a config snapshot from task counts, and worker metadata."""

from __future__ import annotations

from collections.abc import Iterable

from conveyor.herder.distributed.cooperative_assignor import IncrementalCooperativeAssignor
from conveyor.herder.distributed.protocol import ConnectAssignment, WorkerMetadata
from conveyor.runtime.task_spec import TaskId
from conveyor.storage.cluster_config_state import ClusterConfigState


def config_of(task_counts: dict[str, int], offset: int = 10) -> ClusterConfigState:
    """A config snapshot at `offset` with these connectors, each with its number of committed tasks."""
    return ClusterConfigState(
        offset=offset,
        connector_configs={name: {"name": name} for name in task_counts},
        task_counts=dict(task_counts),
    )


def tasks(connector: str, numbers: Iterable[int]) -> list[TaskId]:
    return [TaskId(connector, n) for n in numbers]


def url(member: str) -> str:
    return f"http://{member}:8083"


def member(
    name: str, offset: int = 10, connectors: list[str] | None = None, running: list[TaskId] | None = None
) -> WorkerMetadata:
    """A member's metadata; with `connectors` or `running`, it reports that it runs them."""
    if connectors is None and running is None:
        return WorkerMetadata(url(name), offset)
    current = ConnectAssignment("leader", url("leader"), offset, list(connectors or []), list(running or []))
    return WorkerMetadata(url(name), offset, current)


class Group:
    """A Connect group driven by hand: members apply their assignments as Kafka's `WorkerCoordinator`
    does (stop the revoked, start the assigned, keep the rest) and the leader's assignor runs on a clock
    the test moves."""

    def __init__(self, config: ClusterConfigState, max_delay_ms: int = 10_000) -> None:
        self.config = config
        self.max_delay_ms = max_delay_ms
        self.now_ms = 0
        self.generation = 0
        self.leader_completed_generation = -1
        self.assignor = IncrementalCooperativeAssignor(max_delay_ms, lambda: self.now_ms)
        self.running: dict[str, ConnectAssignment | None] = {}

    def join(self, *names: str) -> None:
        for name in names:
            self.running[name] = None

    def leave(self, name: str) -> None:
        del self.running[name]

    def rejoin_with(self, name: str, previous: ConnectAssignment | None) -> None:
        self.running[name] = previous

    def new_leader(self) -> None:
        """Another member becomes leader: its assignor starts with no memory of earlier rounds."""
        self.assignor = IncrementalCooperativeAssignor(self.max_delay_ms, lambda: self.now_ms)

    @property
    def leader(self) -> str:
        return min(self.running)

    def rebalance(self) -> dict[str, ConnectAssignment]:
        """One generation: every present member joins with what it runs; all apply their assignment."""
        members = {
            name: WorkerMetadata(url(name), self.config.offset, current)
            for name, current in self.running.items()
        }
        self.generation += 1
        result = self.assignor.assign(
            self.leader,
            members,
            self.config,
            last_completed_generation=self.leader_completed_generation,
            generation=self.generation,
        )
        for name, assignment in result.assignments.items():
            before = self.running[name] or ConnectAssignment(assignment.leader, assignment.leader_url, 0)
            self.running[name] = ConnectAssignment(
                assignment.leader,
                assignment.leader_url,
                assignment.config_offset,
                [c for c in before.connectors if c not in assignment.revoked_connectors]
                + assignment.connectors,
                [t for t in before.tasks if t not in assignment.revoked_tasks] + assignment.tasks,
            )
        self.leader_completed_generation = self.generation
        return result.assignments

    def settle(self, max_rounds: int = 30) -> list[dict[str, ConnectAssignment]]:
        """Rebalance as members would: again while anyone had something revoked (the follow-up
        rebalance) or a delay was sent (after waiting it out), until a round needs neither."""
        rounds = [self.rebalance()]
        while len(rounds) < max_rounds:
            last = rounds[-1]
            delay = max((a.delay_ms for a in last.values()), default=0)
            revoked = any(a.revoked_connectors or a.revoked_tasks for a in last.values())
            if not delay and not revoked:
                return rounds
            self.now_ms += delay
            rounds.append(self.rebalance())
        raise AssertionError(f"the group did not settle in {max_rounds} rounds")

    def connectors_of(self, name: str) -> list[str]:
        current = self.running[name]
        return [] if current is None else current.connectors

    def tasks_of(self, name: str) -> list[TaskId]:
        current = self.running[name]
        return [] if current is None else current.tasks

    def all_tasks(self) -> list[TaskId]:
        return [t for name in self.running for t in self.tasks_of(name)]

    def all_connectors(self) -> list[str]:
        return [c for name in self.running for c in self.connectors_of(name)]
