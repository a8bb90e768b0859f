"""An immutable snapshot of everything read from the config topic up to one offset."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from conveyor.storage.config_records import STARTED, SessionKey, TargetState

Properties = Mapping[str, str]


def _empty() -> Mapping[Any, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class ClusterConfigState:
    """The cluster's configuration as of ``offset``, the position after the last config record applied.

    Task configs appear only once their commit record has been read; a connector whose committed task set
    is incomplete (Kafka's compaction hazard) is ``inconsistent`` and shows no task configs until a
    complete set is committed.
    """

    offset: int = -1
    connector_configs: Mapping[str, Properties] = field(default_factory=_empty)
    target_states: Mapping[str, TargetState] = field(default_factory=_empty)
    task_counts: Mapping[str, int] = field(default_factory=_empty)
    committed_task_configs: Mapping[tuple[str, int], Properties] = field(default_factory=_empty)
    task_config_generations: Mapping[str, int] = field(default_factory=_empty)
    task_count_records: Mapping[str, int] = field(default_factory=_empty)
    connectors_pending_fencing: frozenset[str] = frozenset()
    inconsistent_connectors: frozenset[str] = frozenset()
    session_key: SessionKey | None = None
    """The latest session key read (KIP-507), or None before the leader has distributed one."""

    def connectors(self) -> list[str]:
        """Names of the configured connectors, sorted."""
        return sorted(self.connector_configs)

    def contains(self, connector: str) -> bool:
        return connector in self.connector_configs

    def connector_config(self, connector: str) -> dict[str, str] | None:
        """A copy of the connector's config, or None if it is not configured."""
        config = self.connector_configs.get(connector)
        return None if config is None else dict(config)

    def target_state(self, connector: str) -> TargetState:
        """The state the connector should be in; STARTED unless a target state record says otherwise."""
        return self.target_states.get(connector, STARTED)

    def task_count(self, connector: str) -> int:
        """The task count of the connector's latest commit record (0 if none)."""
        return self.task_counts.get(connector, 0)

    def task_configs(self, connector: str) -> list[dict[str, str]]:
        """Copies of the committed task configs, by task number; empty while the connector is inconsistent."""
        if connector in self.inconsistent_connectors:
            return []
        configs = []
        for task in range(self.task_count(connector)):
            config = self.committed_task_configs.get((connector, task))
            if config is None:
                return []
            configs.append(dict(config))
        return configs

    def task_config(self, connector: str, task: int) -> dict[str, str] | None:
        """A copy of one committed task config, or None."""
        if connector in self.inconsistent_connectors or task >= self.task_count(connector):
            return None
        config = self.committed_task_configs.get((connector, task))
        return None if config is None else dict(config)

    def task_config_generation(self, connector: str) -> int | None:
        """How many complete task config sets were committed for the connector, minus one (None if none)."""
        return self.task_config_generations.get(connector)

    def task_count_record(self, connector: str) -> int | None:
        """The task count of the connector's latest ``tasks-fencing-`` record (KIP-618), or None."""
        return self.task_count_records.get(connector)

    def pending_fencing(self, connector: str) -> bool:
        """Whether task configs were committed after the latest task count record (zombies may remain)."""
        return connector in self.connectors_pending_fencing

    def inconsistent(self) -> frozenset[str]:
        """Connectors whose latest commit record did not find a complete set of task configs."""
        return self.inconsistent_connectors
