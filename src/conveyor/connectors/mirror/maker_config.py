"""The dedicated mode's ``mm2.properties``, with Kafka MirrorMaker 2's keys: ``clusters``, ``<alias>.log.url``
(or ``<alias>.bootstrap.servers``), ``<source>-><target>.enabled``, ``<source>-><target>.topics``... and
what it runs: one worker per enabled flow, on the target cluster, with the flow's connectors."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from conveyor.connectors.mirror.bytes_only import byte_array_converters
from conveyor.connectors.mirror.clusters import require_cluster_log_url
from conveyor.connectors.mirror.config import EMIT_CHECKPOINTS_CONFIG, EMIT_OFFSET_SYNCS_CONFIG
from conveyor.connectors.mirror.policy import DEFAULT_SEPARATOR, SEPARATOR_CONFIG
from conveyor.connectors.mirror.topic_filter import TOPICS_CONFIG, TOPICS_EXCLUDE_CONFIG, TopicFilter
from conveyor.errors import ConfigError
from conveyor.settings.names import CONSUMER_LOG_URL_CONFIG
from conveyor.settings.unsafe_overrides import (
    ALLOWED_PATHS_CONFIG,
    ALLOWED_UNSAFE_KEYS_CONFIG,
    ALLOWED_URLS_CONFIG,
    unsafe_settings_in_log_urls,
)

CLUSTERS_CONFIG = "clusters"
FLOW_ARROW = "->"
ENABLED = "enabled"
DATA_DIR_CONFIG = "data.dir"
SOURCE_CONNECTOR = "MirrorSourceConnector"
SINK_CONNECTOR = "MirrorSinkConnector"
HEARTBEAT_CONNECTOR = "MirrorHeartbeatConnector"
CHECKPOINT_CONNECTOR = "MirrorCheckpointConnector"
DESIGN_CONFIG = "mirror.design"
"""Conveyor's own flow setting: ``source`` (Kafka's MirrorSourceConnector, exactly once through KIP-618 on
a target with ``exactly.once.source.support = enabled``) or ``sink`` (KIP-656's transactional
MirrorSinkConnector, named ``MirrorSinkConnector-<target>`` so that its consumer group on the source is
the flow's own)."""
WORKER_KEYS = (
    "exactly.once.source.support",
    "offset.flush.interval.ms",
    "spark.master",
    "task.shutdown.graceful.timeout.ms",
    "listeners",
    "rest.advertised.host.name",
    "rest.advertised.port",
    "rest.advertised.listener",
    "connect.protocol",
    "scheduled.rebalance.max.delay.ms",
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "rebalance.timeout.ms",
    "config.storage.replication.factor",
    "offset.storage.replication.factor",
    "status.storage.replication.factor",
    ALLOWED_UNSAFE_KEYS_CONFIG,
    ALLOWED_PATHS_CONFIG,
    ALLOWED_URLS_CONFIG,
)
"""Settings of the flow's worker that may be given at the top level or per target cluster."""


@dataclass(frozen=True)
class Flow:
    """Replication from one cluster to another: the worker that runs it and its connectors' configs."""

    source: str
    target: str
    worker_props: dict[str, str]
    connectors: dict[str, dict[str, str]]

    def __str__(self) -> str:
        return f"{self.source}{FLOW_ARROW}{self.target}"


def _enabled(settings: Mapping[str, str], key: str) -> bool:
    return settings.get(key, "true").strip().lower() == "true"


def sink_design_config(common: Mapping[str, str], source: str, target: str) -> dict[str, str]:
    """The MirrorSinkConnector of a flow: its consumer reads the source cluster, and MirrorMaker's
    ``topics``/``topics.exclude`` regexes (and the cycle rule) become the sink's ``topics.regex``."""
    topic_filter = TopicFilter.from_config(common)
    separator = common.get(SEPARATOR_CONFIG, DEFAULT_SEPARATOR)
    excluded = [p.pattern for p in topic_filter.exclude] + [re.escape(target + separator) + ".*"]
    included = [p.pattern for p in topic_filter.include]
    config = {k: v for k, v in common.items() if k not in (TOPICS_CONFIG, TOPICS_EXCLUDE_CONFIG)}
    return {
        **config,
        "connector.class": SINK_CONNECTOR,
        "topics.regex": f"(?!(?:{'|'.join(excluded)})$)(?:{'|'.join(included)})",
        CONSUMER_LOG_URL_CONFIG: common["source.cluster.log.url"],
    }


def _is_cluster_key(key: str, aliases: Sequence[str]) -> bool:
    return FLOW_ARROW in key.split(".", 1)[0] or any(key.startswith(alias + ".") for alias in aliases)


@dataclass(frozen=True)
class MirrorMakerConfig:
    """``mm2.properties`` parsed: the cluster aliases, their logs, and the top-level settings."""

    props: dict[str, str]
    clusters: tuple[str, ...]

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> MirrorMakerConfig:
        aliases = tuple(a.strip() for a in props.get(CLUSTERS_CONFIG, "").split(",") if a.strip())
        if not aliases:
            raise ConfigError(f"Missing required configuration {CLUSTERS_CONFIG} (e.g. clusters = A, B)")
        config = cls(dict(props), aliases)
        for alias in aliases:
            require_cluster_log_url(props, alias + ".")
        return config

    def log_url(self, alias: str) -> str:
        return require_cluster_log_url(self.props, alias + ".")

    def _top_level(self) -> dict[str, str]:
        return {
            k: v
            for k, v in self.props.items()
            if k != CLUSTERS_CONFIG and not _is_cluster_key(k, self.clusters)
        }

    def _flow_settings(self, source: str, target: str) -> dict[str, str]:
        prefix = f"{source}{FLOW_ARROW}{target}."
        return {k.removeprefix(prefix): v for k, v in self.props.items() if k.startswith(prefix)}

    def _cluster_settings(self, alias: str) -> dict[str, str]:
        prefix = alias + "."
        return {k.removeprefix(prefix): v for k, v in self.props.items() if k.startswith(prefix)}

    def flows(self, targets: Sequence[str] | None = None) -> list[Flow]:
        """The enabled flows (``A->B.enabled = true``), only those into ``targets`` if given."""
        flows = []
        for source in self.clusters:
            for target in self.clusters:
                if source == target or (targets and target not in targets):
                    continue
                settings = self._flow_settings(source, target)
                if settings.get(ENABLED, "false").strip().lower() == "true":
                    flows.append(self._flow(source, target, settings))
        return flows

    def _flow(self, source: str, target: str, flow_settings: Mapping[str, str]) -> Flow:
        top, target_settings = self._top_level(), self._cluster_settings(target)
        common = {
            **{k: v for k, v in top.items() if k not in WORKER_KEYS and k != DATA_DIR_CONFIG},
            **{k: v for k, v in flow_settings.items() if k not in (ENABLED, DESIGN_CONFIG)},
            "source.cluster.alias": source,
            "target.cluster.alias": target,
            "source.cluster.log.url": self.log_url(source),
            "target.cluster.log.url": self.log_url(target),
            **byte_array_converters(),
        }
        common.setdefault("tasks.max", "1")
        design = flow_settings.get(DESIGN_CONFIG, self.props.get(DESIGN_CONFIG, "source")).strip().lower()
        if design == "source":
            replication = {SOURCE_CONNECTOR: {**common, "connector.class": SOURCE_CONNECTOR}}
        elif design == "sink":
            replication = {f"{SINK_CONNECTOR}-{target}": sink_design_config(common, source, target)}
        else:
            raise ConfigError(
                f"{source}{FLOW_ARROW}{target}.{DESIGN_CONFIG} must be source or sink, not {design!r}"
            )
        connectors = {
            **replication,
            HEARTBEAT_CONNECTOR: {**common, "connector.class": HEARTBEAT_CONNECTOR},
        }
        if _enabled(common, EMIT_CHECKPOINTS_CONFIG) and _enabled(common, EMIT_OFFSET_SYNCS_CONFIG):
            connectors[CHECKPOINT_CONNECTOR] = {**common, "connector.class": CHECKPOINT_CONNECTOR}
        data_dir = Path(self.props.get(DATA_DIR_CONFIG) or "conveyor-mirror") / f"{source}-to-{target}"
        worker = {
            "listeners": "http://127.0.0.1:0",
            **{k: v for k, v in top.items() if k in WORKER_KEYS},
            **{k: v for k, v in target_settings.items() if k in WORKER_KEYS},
            **{k: v for k, v in flow_settings.items() if k in WORKER_KEYS},
            "data.dir": str(data_dir.resolve()),
            "log.url": self.log_url(target),
            "group.id": f"{source}-mm2",
            "config.storage.topic": f"mm2-configs.{source}.internal",
            "offset.storage.topic": f"mm2-offsets.{source}.internal",
            "status.storage.topic": f"mm2-status.{source}.internal",
            **byte_array_converters(),
        }
        worker.update(_operators_unsafe_settings(worker, [self.log_url(source), self.log_url(target)]))
        return Flow(source, target, worker, connectors)


def _operators_unsafe_settings(worker: Mapping[str, str], urls: Sequence[str]) -> dict[str, str]:
    """The flow worker's allowed unsafe keys, with those of the cluster URLs mm2.properties gives (its
    connectors open those logs, and they are the operator's settings, not a connector author's)."""
    listed = [key.strip() for key in worker.get(ALLOWED_UNSAFE_KEYS_CONFIG, "").split(",") if key.strip()]
    keys = sorted(set(listed) | unsafe_settings_in_log_urls(urls))
    return {ALLOWED_UNSAFE_KEYS_CONFIG: ",".join(keys)} if keys else {}
