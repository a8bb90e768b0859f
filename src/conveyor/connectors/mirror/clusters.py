"""Clusters by alias: each is a log, named by ``<prefix>log.url`` or, for Kafka,
``<prefix>bootstrap.servers``."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.errors import ConfigError
from conveyor.settings.names import BOOTSTRAP_SERVERS

LOG_URL = "log.url"
SOURCE_PREFIX = "source.cluster."
TARGET_PREFIX = "target.cluster."


def cluster_log_url(config: Mapping[str, str], prefix: str) -> str | None:
    """The log URL of the cluster whose settings start with ``prefix`` (``A.``, ``source.cluster.``)."""
    url = config.get(prefix + LOG_URL, "").strip()
    if url:
        return url
    servers = config.get(prefix + BOOTSTRAP_SERVERS, "").strip()
    return f"kafka://{servers}" if servers else None


def require_cluster_log_url(config: Mapping[str, str], prefix: str) -> str:
    url = cluster_log_url(config, prefix)
    if url is None:
        raise ConfigError(
            f"Missing required configuration {prefix}{LOG_URL} (or {prefix}{BOOTSTRAP_SERVERS})"
        )
    return url
