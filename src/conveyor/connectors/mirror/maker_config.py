"""The dedicated mode's ``mm2.properties``, with Kafka MirrorMaker 2's keys: ``clusters``, ``<alias>.log.url``
(or ``<alias>.bootstrap.servers``), ``<source>-><target>.enabled``, ``<source>-><target>.topics``... and
what it runs: one worker per enabled flow, on the target cluster, with the flow's connectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from conveyor.connectors.mirror.bytes_only import byte_array_converters
from conveyor.connectors.mirror.clusters import require_cluster_log_url
from conveyor.errors import ConfigError

CLUSTERS_CONFIG = "clusters"
FLOW_ARROW = "->"
ENABLED = "enabled"
DATA_DIR_CONFIG = "data.dir"
SOURCE_CONNECTOR = "MirrorSourceConnector"
WORKER_KEYS = (
    "exactly.once.source.support",
    "offset.flush.interval.ms",
    "spark.master",
    "task.shutdown.graceful.timeout.ms",
    "listeners",
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
        connector = {
            **{k: v for k, v in top.items() if k not in WORKER_KEYS and k != DATA_DIR_CONFIG},
            **{k: v for k, v in flow_settings.items() if k != ENABLED},
            "connector.class": SOURCE_CONNECTOR,
            "source.cluster.alias": source,
            "target.cluster.alias": target,
            "source.cluster.log.url": self.log_url(source),
            "target.cluster.log.url": self.log_url(target),
            **byte_array_converters(),
        }
        connector.setdefault("tasks.max", "1")
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
        return Flow(source, target, worker, {SOURCE_CONNECTOR: connector})
