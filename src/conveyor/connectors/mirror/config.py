"""The settings the mirror connectors share and their own, with Kafka MirrorMaker 2's names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.api import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigType,
    Importance,
    LambdaValidator,
    Range,
    TransactionBoundary,
)
from conveyor.connectors.mirror.clusters import (
    SOURCE_PREFIX,
    TARGET_PREFIX,
    cluster_log_url,
    require_cluster_log_url,
)
from conveyor.connectors.mirror.policy import (
    DEFAULT_SEPARATOR,
    INTERNAL_SEPARATOR_CONFIG,
    POLICY_CLASS_CONFIG,
    SEPARATOR_CONFIG,
    ReplicationPolicy,
    replication_policy,
)
from conveyor.connectors.mirror.replication_metrics import (
    METRIC_NAMES_FORMATS_CONFIG,
    check_metric_names_formats,
)
from conveyor.connectors.mirror.topic_filter import (
    DEFAULT_TOPICS,
    DEFAULT_TOPICS_EXCLUDE,
    TOPICS_CONFIG,
    TOPICS_EXCLUDE_CONFIG,
    TopicFilter,
)
from conveyor.errors import ConfigError
from conveyor.settings.connector_config.definitions import (
    TRANSACTION_BOUNDARY_CONFIG,
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
)
from conveyor.settings.names import CONSUMER_LOG_URL_CONFIG

SOURCE_ALIAS_CONFIG = "source.cluster.alias"
TARGET_ALIAS_CONFIG = "target.cluster.alias"
SYNC_TOPIC_CONFIGS_CONFIG = "sync.topic.configs.enabled"
REFRESH_TOPICS_ENABLED_CONFIG = "refresh.topics.enabled"
REFRESH_TOPICS_INTERVAL_CONFIG = "refresh.topics.interval.seconds"
EMIT_OFFSET_SYNCS_CONFIG = "emit.offset-syncs.enabled"
EMIT_CHECKPOINTS_CONFIG = "emit.checkpoints.enabled"
OFFSET_LAG_MAX_CONFIG = "offset.lag.max"
CONSUMER_ISOLATION_CONFIG = "consumer.isolation.level"
TRANSACTIONAL_PRODUCER_CONFIG = "transactional.producer"
TRANSACTION_BOUNDARY_RECORDS_CONFIG = "transaction.boundary.max.records"
TASK_PARTITIONS_CONFIG = "task.assigned.partitions"
HEARTBEATS_REPLICATION_CONFIG = "heartbeats.replication.enabled"

MIRROR_CONFIG_DEF = (
    ConfigDef()
    .define(SOURCE_ALIAS_CONFIG, ConfigType.STRING, default="source", importance=Importance.HIGH,
        documentation="The alias of the cluster records are read from.")
    .define(TARGET_ALIAS_CONFIG, ConfigType.STRING, default="target", importance=Importance.HIGH,
        documentation="The alias of the cluster records are written to.")
    .define(SOURCE_PREFIX + "log.url", ConfigType.STRING, default="", importance=Importance.HIGH,
        documentation="The source cluster's log (or source.cluster.bootstrap.servers for Kafka).")
    .define(TARGET_PREFIX + "log.url", ConfigType.STRING, default="", importance=Importance.HIGH,
        documentation="The target cluster's log (or target.cluster.bootstrap.servers for Kafka).")
    .define(TOPICS_EXCLUDE_CONFIG, ConfigType.STRING, default=DEFAULT_TOPICS_EXCLUDE,
        importance=Importance.HIGH, documentation="Comma-separated regexes of topics not to replicate.")
    .define(POLICY_CLASS_CONFIG, ConfigType.STRING, default="DefaultReplicationPolicy",
        importance=Importance.LOW,
        documentation="DefaultReplicationPolicy (<alias>.<topic>) or IdentityReplicationPolicy.")
    .define(SEPARATOR_CONFIG, ConfigType.STRING, default=DEFAULT_SEPARATOR, importance=Importance.LOW,
        documentation="What DefaultReplicationPolicy puts between the source alias and the topic.")
    .define(INTERNAL_SEPARATOR_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation="Whether MirrorMaker's internal topics (offset syncs, checkpoints) are named with "
        "replication.policy.separator too (KIP-949); false keeps '.' in their names.")
    .define(SYNC_TOPIC_CONFIGS_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation="Create remote topics with their source topic's configs.")
    .define(EMIT_OFFSET_SYNCS_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation="Record upstream/downstream offset pairs in mm2-offset-syncs.<target>.internal.")
    .define(OFFSET_LAG_MAX_CONFIG, ConfigType.LONG, default=100, validator=Range.at_least(0),
        importance=Importance.LOW,
        documentation="How far the upstream offset may move before a new offset sync is written.")
)  # fmt: skip

SOURCE_CONFIG_DEF = (
    ConfigDef(MIRROR_CONFIG_DEF)
    .define(TOPICS_CONFIG, ConfigType.STRING, default=DEFAULT_TOPICS, importance=Importance.HIGH,
        documentation="Comma-separated regexes of topics to replicate.")
    .define(REFRESH_TOPICS_ENABLED_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation="Look for new topics and partitions to replicate periodically.")
    .define(REFRESH_TOPICS_INTERVAL_CONFIG, ConfigType.LONG, default=600, validator=Range.at_least(1),
        importance=Importance.LOW, documentation="How often, in seconds, to look for new topics.")
    .define(METRIC_NAMES_FORMATS_CONFIG, ConfigType.STRING, default="legacy",
        validator=LambdaValidator(check_metric_names_formats, "legacy, new, or legacy,new"),
        importance=Importance.LOW,
        documentation="Kafka's metric name formats (KIP-1280); Conveyor publishes the new names "
        "(kafka.connect:type=plugins) whatever this says.")
    .define(HEARTBEATS_REPLICATION_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation="Whether heartbeats topics are replicated even when topics does not select them "
        "(KIP-1089).")
    .define(CONSUMER_ISOLATION_CONFIG, ConfigType.STRING, default="read_committed", importance=Importance.LOW,
        documentation="read_committed (the default, required for exactly-once) or read_uncommitted.")
)  # fmt: skip

SINK_CONFIG_DEF = (
    ConfigDef(MIRROR_CONFIG_DEF)
    .define(TRANSACTIONAL_PRODUCER_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.HIGH,
        documentation="KIP-656: write the batches and the source consumer offsets in transactions on the "
        "target cluster (exactly once); false writes plainly and commits offsets on the source "
        "(at least once).")
    .define(TRANSACTION_BOUNDARY_CONFIG, ConfigType.STRING, default=TransactionBoundary.POLL.value,
        validator=CaseInsensitiveValidString.in_(
        TransactionBoundary.POLL.value, TransactionBoundary.INTERVAL.value
        ), importance=Importance.MEDIUM,
        documentation="Where a transaction of the sink design ends: 'poll' commits one per polled batch; "
        "'interval' lets one transaction cover consecutive batches until it holds "
        f"{TRANSACTION_BOUNDARY_RECORDS_CONFIG} records or is {TRANSACTION_BOUNDARY_INTERVAL_CONFIG} old.")
    .define(TRANSACTION_BOUNDARY_INTERVAL_CONFIG, ConfigType.LONG, default=100, validator=Range.at_least(0),
        importance=Importance.LOW,
        documentation="With transaction.boundary=interval, the longest a transaction stays open (ms) "
        "before it commits, records or not.")
    .define(TRANSACTION_BOUNDARY_RECORDS_CONFIG, ConfigType.INT, default=10_000, validator=Range.at_least(1),
        importance=Importance.LOW,
        documentation="With transaction.boundary=interval, a transaction commits once it holds this many "
        "records (the batches of an open transaction stay in memory, to be sent again should it abort).")
)  # fmt: skip


@dataclass(frozen=True)
class SinkTransactionBoundary:
    """When the sink design commits: after every batch, or after ``max_records`` or ``interval_ms``."""

    spans_batches: bool
    interval_ms: int
    max_records: int

    @classmethod
    def parse(cls, props: Mapping[str, str]) -> SinkTransactionBoundary:
        values = SINK_CONFIG_DEF.parse(props)
        return cls(
            TransactionBoundary.from_property(str(values[TRANSACTION_BOUNDARY_CONFIG]))
            is TransactionBoundary.INTERVAL,
            int(values[TRANSACTION_BOUNDARY_INTERVAL_CONFIG]),
            int(values[TRANSACTION_BOUNDARY_RECORDS_CONFIG]),
        )


@dataclass(frozen=True)
class MirrorSettings:
    """What every mirror connector and task reads from its config."""

    source_alias: str
    target_alias: str
    source_url: str
    target_url: str
    policy: ReplicationPolicy
    sync_topic_configs: bool
    emit_offset_syncs: bool
    offset_lag_max: int

    @classmethod
    def parse(cls, props: Mapping[str, str], definition: ConfigDef = MIRROR_CONFIG_DEF) -> MirrorSettings:
        parsed = definition.parse(props)
        return cls(
            source_alias=parsed[SOURCE_ALIAS_CONFIG],
            target_alias=parsed[TARGET_ALIAS_CONFIG],
            source_url=source_log_url(props),
            target_url=require_cluster_log_url(props, TARGET_PREFIX),
            policy=replication_policy(props),
            sync_topic_configs=parsed[SYNC_TOPIC_CONFIGS_CONFIG],
            emit_offset_syncs=parsed[EMIT_OFFSET_SYNCS_CONFIG],
            offset_lag_max=parsed[OFFSET_LAG_MAX_CONFIG],
        )

    def remote_topic(self, topic: str) -> str:
        return self.policy.format_remote_topic(self.source_alias, topic)


def source_log_url(props: Mapping[str, str]) -> str:
    """The source cluster: ``source.cluster.log.url``, or the log a sink's consumer reads; both must agree."""
    named = cluster_log_url(props, SOURCE_PREFIX)
    consumer = props.get(CONSUMER_LOG_URL_CONFIG, "").strip() or None
    if named and consumer and named != consumer:
        raise ConfigError(
            f"{SOURCE_PREFIX}log.url {named!r} and {CONSUMER_LOG_URL_CONFIG} {consumer!r} "
            "name different clusters"
        )
    url = named or consumer
    if url is None:
        raise ConfigError(
            f"Missing required configuration {SOURCE_PREFIX}log.url (or {SOURCE_PREFIX}bootstrap.servers)"
        )
    return url


def topic_filter(props: Mapping[str, str]) -> TopicFilter:
    return TopicFilter.from_config(props)
