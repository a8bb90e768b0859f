"""``MirrorCheckpointConnector``: consumer group offsets of the source cluster, translated through the offset
syncs into checkpoints on the target (``<source>.checkpoints.internal``) and, when
``sync.group.offsets.enabled``, committed to the same groups on the target, so consumers can fail over."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping

from conveyor import __version__
from conveyor.api import ConfigDef, ConfigType, Importance, Range, SourceConnector, SourceTask, Task
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.mirror.bytes_only import require_byte_array_converters
from conveyor.connectors.mirror.config import (
    EMIT_CHECKPOINTS_CONFIG,
    EMIT_OFFSET_SYNCS_CONFIG,
    MIRROR_CONFIG_DEF,
    MirrorSettings,
)
from conveyor.connectors.mirror.offset_syncs import OFFSET_SYNCS_TOPIC_CONFIG
from conveyor.connectors.mirror.offset_translation import OffsetSyncStore
from conveyor.connectors.mirror.wire import Checkpoint
from conveyor.data import OPTIONAL_BYTES_SCHEMA, SourceRecord
from conveyor.errors import ConfigError
from conveyor.log import Log, NonEmptyGroupError, OffsetAndMetadata, TopicPartition, open_log

logger = logging.getLogger(__name__)

GROUPS_CONFIG = "groups"
GROUPS_EXCLUDE_CONFIG = "groups.exclude"
EMIT_INTERVAL_CONFIG = "emit.checkpoints.interval.seconds"
SYNC_GROUP_OFFSETS_CONFIG = "sync.group.offsets.enabled"
SYNC_INTERVAL_CONFIG = "sync.group.offsets.interval.seconds"
SYNCS_LOCATION_CONFIG = "offset-syncs.topic.location"
TASK_GROUPS_CONFIG = "task.assigned.groups"
"""The groups Kafka's MirrorCheckpointConnector gives each task; a Conveyor task config has none."""
LONGEST_POLL_S = 0.5
CHECKPOINTS_TOPIC_CONFIG = {"cleanup.policy": "compact"}

CHECKPOINT_CONFIG_DEF = (
    ConfigDef(MIRROR_CONFIG_DEF)
    .define(GROUPS_CONFIG, ConfigType.STRING, default=".*", importance=Importance.HIGH,
            documentation="Comma-separated regexes of consumer groups to checkpoint.")
    .define(GROUPS_EXCLUDE_CONFIG, ConfigType.STRING, default="console-consumer-.*,connect-.*,__.*",
            importance=Importance.HIGH, documentation="Comma-separated regexes of groups to leave out.")
    .define(EMIT_INTERVAL_CONFIG, ConfigType.DOUBLE, default=60.0, validator=Range.at_least(0.01),
            importance=Importance.LOW, documentation="Seconds between two rounds of checkpoints.")
    .define(SYNC_GROUP_OFFSETS_CONFIG, ConfigType.BOOLEAN, default=False, importance=Importance.MEDIUM,
            documentation="Also commit the translated offsets to the groups on the target, while the "
            "group has no member there.")
    .define(SYNC_INTERVAL_CONFIG, ConfigType.DOUBLE, default=60.0, validator=Range.at_least(0.01),
            importance=Importance.LOW, documentation="Seconds between two group offset syncs.")
    .define(SYNCS_LOCATION_CONFIG, ConfigType.STRING, default="target", importance=Importance.LOW,
            documentation="Where the offset syncs are: target (where the sink design writes them) or source.")
)  # fmt: skip


def _patterns(text: str) -> list[re.Pattern[str]]:
    return [re.compile(part.strip()) for part in text.split(",") if part.strip()]


def _assigned_groups(props: Mapping[str, str]) -> set[str] | None:
    """The groups of ``task.assigned.groups`` (a Kafka task config), None when the config has none."""
    value = props.get(TASK_GROUPS_CONFIG)
    if value is None:
        return None
    return {group.strip() for group in value.split(",") if group.strip()}


def require_offset_syncs(props: Mapping[str, str]) -> None:
    """A checkpoint connector has nothing to do without checkpoints or offset syncs (KIP-1031); a flow
    that is not ``enabled`` is not checked, as in Kafka."""
    if props.get("enabled", "true") == "false":
        return
    if props.get(EMIT_CHECKPOINTS_CONFIG) == "false":
        raise ConfigError(
            EMIT_CHECKPOINTS_CONFIG,
            "false",
            f"MirrorCheckpointConnector can't run with {EMIT_CHECKPOINTS_CONFIG} set to false",
        )
    if props.get(EMIT_OFFSET_SYNCS_CONFIG) == "false":
        raise ConfigError(
            EMIT_OFFSET_SYNCS_CONFIG, "false", "MirrorCheckpointConnector can't run without offset syncs"
        )


class MirrorCheckpointConnector(ConfiguredConnector, SourceConnector):
    """One task checkpointing every group that ``groups`` and ``groups.exclude`` select."""

    CONFIG_DEF = CHECKPOINT_CONFIG_DEF

    def _check(self, props: Mapping[str, str]) -> None:
        super()._check(props)
        require_offset_syncs(props)
        require_byte_array_converters(props)
        MirrorSettings.parse(props, CHECKPOINT_CONFIG_DEF)
        location = CHECKPOINT_CONFIG_DEF.parse(props)[SYNCS_LOCATION_CONFIG]
        if location not in ("source", "target"):
            raise ConfigError(f"{SYNCS_LOCATION_CONFIG} must be source or target, not {location!r}")

    def task_class(self) -> type[Task]:
        return MirrorCheckpointTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)] if max_tasks > 0 else []


class MirrorCheckpointTask(SourceTask):
    """Each round: read new offset syncs, translate the selected groups' offsets, return checkpoints."""

    def __init__(self) -> None:
        self._settings: MirrorSettings | None = None
        self._source: Log | None = None
        self._target: Log | None = None
        self._syncs: OffsetSyncStore | None = None
        self._groups: list[re.Pattern[str]] = []
        self._excluded: list[re.Pattern[str]] = []
        self._assigned: set[str] | None = None
        self._topic = ""
        self._emit_s = self._sync_s = 60.0
        self._sync_groups = False
        self._next_emit = self._next_sync = 0.0

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        parsed = CHECKPOINT_CONFIG_DEF.parse(props)
        settings = self._settings = MirrorSettings.parse(props, CHECKPOINT_CONFIG_DEF)
        self._source, self._target = open_log(settings.source_url), open_log(settings.target_url)
        syncs_log = self._target if parsed[SYNCS_LOCATION_CONFIG] == "target" else self._source
        syncs_topic = settings.policy.offset_syncs_topic(settings.target_alias)
        syncs_log.admin().create_topic(syncs_topic, 1, OFFSET_SYNCS_TOPIC_CONFIG, exist_ok=True)
        self._syncs = OffsetSyncStore(syncs_log, syncs_topic)
        self._topic = settings.policy.checkpoints_topic(settings.source_alias)
        self._target.admin().create_topic(self._topic, 1, CHECKPOINTS_TOPIC_CONFIG, exist_ok=True)
        self._groups, self._excluded = (
            _patterns(parsed[GROUPS_CONFIG]),
            _patterns(parsed[GROUPS_EXCLUDE_CONFIG]),
        )
        self._assigned = _assigned_groups(props)
        self._emit_s, self._sync_s = parsed[EMIT_INTERVAL_CONFIG], parsed[SYNC_INTERVAL_CONFIG]
        self._sync_groups = parsed[SYNC_GROUP_OFFSETS_CONFIG]
        self._next_emit = self._next_sync = time.monotonic()

    def _selected_groups(self) -> list[str]:
        """The groups assigned to this task by Kafka's connector, or else those ``groups`` and
        ``groups.exclude`` select now."""
        assert self._source is not None
        return [
            group
            for group in self._source.admin().list_consumer_groups()
            if (group in self._assigned if self._assigned is not None else self._matches(group))
        ]

    def _matches(self, group: str) -> bool:
        return any(p.fullmatch(group) for p in self._groups) and not any(
            p.fullmatch(group) for p in self._excluded
        )

    def checkpoints(self) -> list[Checkpoint]:
        """The translatable committed offsets of every selected group, as checkpoints."""
        assert self._source is not None and self._syncs is not None and self._settings is not None
        self._syncs.read_to_end()
        found = []
        for group in self._selected_groups():
            for partition, committed in self._source.admin().list_consumer_group_offsets(group).items():
                downstream = self._syncs.translate(partition, committed.offset)
                if downstream is not None:
                    remote = TopicPartition(self._settings.remote_topic(partition.topic), partition.partition)
                    found.append(Checkpoint(group, remote, committed.offset, downstream, committed.metadata))
        return found

    def poll(self) -> list[SourceRecord] | None:
        now = time.monotonic()
        due = min(self._next_emit, self._next_sync if self._sync_groups else self._next_emit)
        if now < due:
            time.sleep(min(due - now, LONGEST_POLL_S))
            return None
        checkpoints = self.checkpoints()
        if self._sync_groups and now >= self._next_sync:
            self._next_sync = now + self._sync_s
            self.sync_group_offsets(checkpoints)
        if now < self._next_emit:
            return None
        self._next_emit = now + self._emit_s
        return [self._record(c) for c in checkpoints]

    def _record(self, checkpoint: Checkpoint) -> SourceRecord:
        return SourceRecord(
            self._topic,
            source_partition={
                "group": checkpoint.group,
                "topic": checkpoint.partition.topic,
                "partition": checkpoint.partition.partition,
            },
            source_offset={"offset": checkpoint.upstream_offset},
            kafka_partition=0,
            key_schema=OPTIONAL_BYTES_SCHEMA,
            key=checkpoint.key(),
            value_schema=OPTIONAL_BYTES_SCHEMA,
            value=checkpoint.value(),
        )

    def sync_group_offsets(self, checkpoints: list[Checkpoint]) -> None:
        """Move each group's offsets on the target forward to the translated ones; a group with members
        there is left alone (it consumes on the target already), and offsets never move back."""
        assert self._target is not None
        admin = self._target.admin()
        by_group: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        for checkpoint in checkpoints:
            by_group.setdefault(checkpoint.group, {})[checkpoint.partition] = OffsetAndMetadata(
                checkpoint.downstream_offset, checkpoint.metadata
            )
        for group, offsets in by_group.items():
            current = (
                admin.list_consumer_group_offsets(group) if group in admin.list_consumer_groups() else {}
            )
            forward = {p: o for p, o in offsets.items() if p not in current or current[p].offset < o.offset}
            if not forward:
                continue
            try:
                admin.alter_consumer_group_offsets(group, forward)
            except NonEmptyGroupError:
                logger.debug("Group %s is active on the target; its offsets are not synced", group)

    def stop(self) -> None:
        for closeable in (self._syncs, self._source, self._target):
            if closeable is not None:
                closeable.close()
