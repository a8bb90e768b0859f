"""Opening a log by URL: ``embedded:<directory>`` (optionally ``?sync=full``) or ``kafka://host:port,...``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs

from conveyor.log.api import Log
from conveyor.log.errors import InvalidLogUrlError

_SYNC_MODES = {"normal": "NORMAL", "full": "FULL"}


def open_log(url: str) -> Log:
    """Open the log a URL names; ``embedded:/var/lib/conveyor`` keeps it in that directory,
    ``kafka://broker1:9092,broker2:9092`` uses that Kafka cluster (see ``conveyor.log.kafka.settings``)."""
    scheme, separator, rest = url.partition(":")
    if not separator:
        raise InvalidLogUrlError(f"Log URL {url!r} has no scheme; use embedded:<directory>")
    if scheme == "embedded":
        return _open_embedded(url, rest)
    if scheme == "kafka":
        from conveyor.log.kafka import KafkaLog

        return KafkaLog.from_url(url)
    raise InvalidLogUrlError(
        f"Log URL {url!r} names unknown backend {scheme!r}; use embedded:<directory> or kafka://host:port"
    )


def url_with_client_settings(
    url: str, client: Literal["admin", "consumer", "producer"], settings: Mapping[str, str]
) -> str:
    """The log URL with ``settings`` added to one kind of client's own, so that every process that opens
    it gives them to that client; a log whose clients take no settings (the embedded log) keeps its URL."""
    if not settings or not url.startswith("kafka:"):
        return url
    from conveyor.log.kafka.settings import KafkaSettings

    return KafkaSettings.from_url(url).with_client_settings(client, settings).url()


def url_on_brokers(url: str, bootstrap_servers: str) -> str | None:
    """The Kafka log URL moved to the cluster ``bootstrap_servers`` names (client settings and namespace
    kept), or None when it names the same brokers (in any order) or the log is not Kafka's."""
    if not url.startswith("kafka:"):
        return None
    from conveyor.log.kafka.settings import KafkaSettings

    settings = KafkaSettings.from_url(url)
    brokers = [server.strip() for server in bootstrap_servers.split(",") if server.strip()]
    if not brokers or set(brokers) == set(settings.bootstrap_servers.split(",")):
        return None
    return replace(settings, bootstrap_servers=",".join(brokers)).url()


def client_settings_in_url(url: str) -> list[tuple[str, str]]:
    """Every client setting a log URL carries, without its client prefix: a Kafka URL's common and
    per-client settings; none for a log whose clients take none, or for a URL that is not valid
    (refused, saying why, when the log is opened)."""
    if not url.strip().startswith("kafka:"):
        return []
    from conveyor.log.kafka.settings import KafkaSettings

    try:
        settings = KafkaSettings.from_url(url.strip())
    except InvalidLogUrlError:
        return []
    found = list(settings.common.items())
    for per_client in settings.per_client.values():
        found.extend(per_client.items())
    return found


def worker_log_url(props: Mapping[str, str], bootstrap_servers: str, data_dir: Path) -> str:
    """The log a worker without `log.url` runs on: Kafka when `bootstrap.servers` is set (its client
    settings taken from the worker's `props`), else an embedded log under `data_dir`."""
    if bootstrap_servers:
        from conveyor.log.kafka.settings import kafka_url_from_worker_props

        return kafka_url_from_worker_props({**props, "bootstrap.servers": bootstrap_servers})
    return f"embedded:{data_dir / 'log'}"


def _open_embedded(url: str, rest: str) -> Log:
    from conveyor.log.embedded import EmbeddedLog

    location, _, query = rest.partition("?")
    if location.startswith("//"):
        location = location[2:]
    if not location:
        raise InvalidLogUrlError(f"Log URL {url!r} names no directory; use embedded:<directory>")
    options = {key: values[-1] for key, values in parse_qs(query).items()}
    unknown = set(options) - {"sync"}
    if unknown:
        raise InvalidLogUrlError(f"Log URL {url!r} has unknown options {sorted(unknown)}")
    sync = options.get("sync", "normal").lower()
    if sync not in _SYNC_MODES:
        raise InvalidLogUrlError(f"Log URL {url!r}: sync must be normal or full, not {sync!r}")
    return EmbeddedLog(Path(location), _SYNC_MODES[sync])
