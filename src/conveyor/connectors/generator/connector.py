"""``GeneratorSourceConnector``: synthetic records for benchmarks and demos, exactly once if asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conveyor.api import (
    ConnectError,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SourceConnector,
    Task,
)
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.generator.config import CONFIG_DEF, TASK_ID_CONFIG
from conveyor.connectors.generator.payload import MAX_TASKS
from conveyor.connectors.generator.task import SEQNO_FIELD, TASK_FIELD, GeneratorSourceTask


class GeneratorSourceConnector(ConfiguredConnector, SourceConnector):
    """Runs ``tasks.max`` generator tasks; task ``i`` owns source partition ``{"task": i}``.

    Every task produces ``records`` records of its own, so the total is ``records * tasks``.
    """

    CONFIG_DEF = CONFIG_DEF

    def task_class(self) -> type[Task]:
        return GeneratorSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, TASK_ID_CONFIG: str(task)} for task in range(min(max_tasks, MAX_TASKS))]

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """Always: a task regenerates exactly the records after its committed sequence number."""
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """Accept ``{"task": i}`` partitions with a non-negative ``seqno`` offset, or a tombstone."""
        for partition, offset in offsets:
            if not _is_count(partition.get(TASK_FIELD)):
                raise ConnectError(f"Partition objects should contain the key '{TASK_FIELD}' with a task id")
            if offset is not None and not _is_count(offset.get(SEQNO_FIELD)):
                raise ConnectError(
                    f"Offset objects should either be null or contain the key '{SEQNO_FIELD}' "
                    "with a non-negative integer"
                )
        return True


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
