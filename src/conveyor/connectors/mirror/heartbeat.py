"""``MirrorHeartbeatConnector``: a heartbeat on the target cluster every ``emit.heartbeats.interval.seconds``,
so replication flows downstream of it can be seen to be alive (Kafka's MirrorHeartbeatConnector)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from conveyor import __version__
from conveyor.api import (
    ConfigDef,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    Range,
    SourceConnector,
    SourceTask,
    Task,
)
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.mirror.bytes_only import require_byte_array_converters
from conveyor.connectors.mirror.config import SOURCE_ALIAS_CONFIG, TARGET_ALIAS_CONFIG
from conveyor.connectors.mirror.policy import replication_policy
from conveyor.connectors.mirror.wire import Heartbeat
from conveyor.data import OPTIONAL_BYTES_SCHEMA, SourceRecord

INTERVAL_CONFIG = "emit.heartbeats.interval.seconds"
ENABLED_CONFIG = "emit.heartbeats.enabled"
LONGEST_POLL_S = 0.5

HEARTBEAT_CONFIG_DEF = (
    ConfigDef()
    .define(SOURCE_ALIAS_CONFIG, ConfigType.STRING, default="source", importance=Importance.HIGH,
            documentation="The alias of the cluster the flow reads.")
    .define(TARGET_ALIAS_CONFIG, ConfigType.STRING, default="target", importance=Importance.HIGH,
            documentation="The alias of the cluster the heartbeats are written to (the worker's log).")
    .define(INTERVAL_CONFIG, ConfigType.DOUBLE, default=1.0, validator=Range.at_least(0.01),
            importance=Importance.LOW, documentation="Seconds between two heartbeats.")
    .define(ENABLED_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
            documentation="Emit heartbeats at all.")
)  # fmt: skip


class MirrorHeartbeatConnector(ConfiguredConnector, SourceConnector):
    """One task, or none when ``emit.heartbeats.enabled`` is false."""

    CONFIG_DEF = HEARTBEAT_CONFIG_DEF

    def _check(self, props: Mapping[str, str]) -> None:
        super()._check(props)
        require_byte_array_converters(props)

    def task_class(self) -> type[Task]:
        return MirrorHeartbeatTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        enabled = HEARTBEAT_CONFIG_DEF.parse(self._props)[ENABLED_CONFIG]
        return [dict(self._props)] if enabled and max_tasks > 0 else []

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED


class MirrorHeartbeatTask(SourceTask):
    """Returns one heartbeat record per interval, keyed by the flow's two aliases."""

    def __init__(self) -> None:
        self._topic = "heartbeats"
        self._source = self._target = ""
        self._interval_s = 1.0
        self._next = 0.0

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        parsed = HEARTBEAT_CONFIG_DEF.parse(props)
        self._source, self._target = parsed[SOURCE_ALIAS_CONFIG], parsed[TARGET_ALIAS_CONFIG]
        self._interval_s = parsed[INTERVAL_CONFIG]
        self._topic = replication_policy(props).heartbeats_topic()
        self._next = time.monotonic()

    def poll(self) -> list[SourceRecord] | None:
        wait = self._next - time.monotonic()
        if wait > 0:
            time.sleep(min(wait, LONGEST_POLL_S))
            return None
        self._next += self._interval_s
        now = int(time.time() * 1000)
        heartbeat = Heartbeat(self._source, self._target, now)
        partition = {"sourceClusterAlias": self._source, "targetClusterAlias": self._target}
        return [
            SourceRecord(
                self._topic,
                source_partition=partition,
                source_offset={"offset": 0},
                kafka_partition=0,
                key_schema=OPTIONAL_BYTES_SCHEMA,
                key=heartbeat.key(),
                value_schema=OPTIONAL_BYTES_SCHEMA,
                value=heartbeat.value(),
                timestamp=now,
            )
        ]

    def stop(self) -> None:
        """Nothing to release."""
