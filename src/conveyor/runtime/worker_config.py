"""The worker's settings, under Kafka Connect's property names where they apply."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

#: Keys Kafka Connect removed or that mean nothing here: accepted with a warning, never a failure.
IGNORED_KEYS: dict[str, str] = {
    "internal.key.converter": "removed in Kafka 3.0; internal topics always use JSON without schemas",
    "internal.value.converter": "removed in Kafka 3.0; internal topics always use JSON without schemas",
    "internal.key.converter.schemas.enable": "removed in Kafka 3.0",
    "internal.value.converter.schemas.enable": "removed in Kafka 3.0",
    "offset.storage.file.filename": "standalone offsets are kept in the log's offsets topic",
    "plugin.path": "plugins are Python packages found by entry points or dotted paths",
    "rest.host.name": "removed in Kafka 4.0; use listeners",
    "rest.port": "removed in Kafka 4.0; use listeners",
}

ExactlyOnceSourceSupport = str


@dataclass(frozen=True)
class WorkerConfig:
    """A worker's parsed settings; `props` keeps every original key for plugins and Spark."""

    props: dict[str, str]
    group_id: str
    log_url: str
    data_dir: Path
    listeners: str
    offsets_topic: str
    configs_topic: str
    status_topic: str
    offsets_partitions: int
    status_partitions: int
    offset_flush_interval_ms: int
    offset_flush_timeout_ms: int
    graceful_shutdown_timeout_ms: int
    exactly_once_source_support: ExactlyOnceSourceSupport
    key_converter: str
    value_converter: str
    header_converter: str
    spark_master: str | None
    task_restart_enabled: bool
    task_restart_initial_ms: int
    task_restart_max_ms: int
    task_lease_ms: int
    topic_tracking_enable: bool
    rest_request_max_bytes: int = 1024 * 1024
    warnings: list[str] = field(default_factory=list)

    @property
    def exactly_once_source_enabled(self) -> bool:
        return self.exactly_once_source_support == "enabled"

    def spark_conf(self) -> dict[str, str]:
        """Every `spark.*` property except the master, for the worker's SparkSession."""
        return {k: v for k, v in self.props.items() if k.startswith("spark.") and k != "spark.master"}

    def executor_props(self) -> dict[str, str]:
        """What a task needs of the worker's settings, shipped to the executor with the task."""
        return dict(self.props) | {
            "log.url": self.log_url,
            "group.id": self.group_id,
            "offset.storage.topic": self.offsets_topic,
            "offset.storage.partitions": str(self.offsets_partitions),
            "offset.flush.interval.ms": str(self.offset_flush_interval_ms),
            "exactly.once.source.support": self.exactly_once_source_support,
            "key.converter": self.key_converter,
            "value.converter": self.value_converter,
            "header.converter": self.header_converter,
        }

    @classmethod
    def from_props(cls, props: Mapping[str, str], *, standalone: bool = True) -> WorkerConfig:
        """Parse worker properties; raises ValueError naming the key on a bad value."""
        values = {k.strip(): str(v).strip() for k, v in props.items()}
        warnings = [
            f"Ignoring worker property '{k}': {why}" for k, why in IGNORED_KEYS.items() if k in values
        ]
        data_dir = Path(values.get("data.dir", os.path.join(os.getcwd(), "conveyor-data"))).resolve()
        log_url = values.get("log.url", "")
        if not log_url:
            if "bootstrap.servers" in values:
                warnings.append(
                    "'bootstrap.servers' is set but the Kafka backend is not available yet; "
                    "using the embedded log under data.dir"
                )
            log_url = f"embedded:{data_dir / 'log'}"
        support = values.get("exactly.once.source.support", "disabled").lower()
        if support not in ("disabled", "preparing", "enabled"):
            raise ValueError(
                f"Invalid value {support} for configuration exactly.once.source.support: "
                "String must be one of: disabled, preparing, enabled"
            )
        return cls(
            props=values,
            group_id=values.get("group.id", "connect-standalone" if standalone else "connect-cluster"),
            log_url=log_url,
            data_dir=data_dir,
            listeners=values.get("listeners", "http://127.0.0.1:8083"),
            offsets_topic=values.get("offset.storage.topic", "connect-offsets"),
            configs_topic=values.get("config.storage.topic", "connect-configs"),
            status_topic=values.get("status.storage.topic", "connect-status"),
            offsets_partitions=_int(values, "offset.storage.partitions", 25),
            status_partitions=_int(values, "status.storage.partitions", 5),
            offset_flush_interval_ms=_int(values, "offset.flush.interval.ms", 60000),
            offset_flush_timeout_ms=_int(values, "offset.flush.timeout.ms", 5000),
            graceful_shutdown_timeout_ms=_int(values, "task.shutdown.graceful.timeout.ms", 5000),
            exactly_once_source_support=support,
            key_converter=values.get("key.converter", "org.apache.kafka.connect.json.JsonConverter"),
            value_converter=values.get("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
            header_converter=values.get(
                "header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter"
            ),
            spark_master=values.get("spark.master"),
            task_restart_enabled=_bool(values, "task.restart.enable", True),
            task_restart_initial_ms=_int(values, "task.restart.backoff.initial.ms", 1000),
            task_restart_max_ms=_int(values, "task.restart.backoff.max.ms", 60000),
            rest_request_max_bytes=_int(values, "rest.request.max.bytes", 1024 * 1024),
            task_lease_ms=_int(values, "task.lease.ms", 10000),
            topic_tracking_enable=_bool(values, "topic.tracking.enable", True),
            warnings=warnings,
        )

    def advertised_worker_id(self, port: int) -> str:
        host = self.props.get("rest.advertised.host.name") or socket.gethostname()
        return f"{host}:{self.props.get('rest.advertised.port', port)}"


def _int(values: Mapping[str, str], key: str, default: int) -> int:
    raw = values.get(key)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"Invalid value {raw} for configuration {key}: Not a number of type INT") from None


def _bool(values: Mapping[str, str], key: str, default: bool) -> bool:
    raw = values.get(key)
    if raw is None or raw == "":
        return default
    if raw.lower() not in ("true", "false"):
        raise ValueError(
            f"Invalid value {raw} for configuration {key}: Expected value to be either true or false"
        )
    return raw.lower() == "true"


def read_properties(text: str) -> dict[str, str]:
    """Parse a Java `.properties` file: `key=value` or `key: value`, `#`/`!` comments, `\\` continuations."""
    props: dict[str, str] = {}
    pending = ""
    for raw_line in text.splitlines():
        line = pending + raw_line.strip() if pending else raw_line.strip()
        if not pending and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending = line[:-1]
            continue
        pending = ""
        separator = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if separator < 0:
            key, value = line, ""
        else:
            key, value = line[:separator], line[separator + 1 :]
        props[key.strip()] = value.strip()
    return props
