"""What a ``kafka://`` URL carries: brokers, client settings per client kind, and a name prefix.

``kafka://host:9092,host2:9092?security.protocol=SSL&producer.linger.ms=10&namespace=team-a.``
Unprefixed settings go to every client; ``producer.``, ``consumer.`` and ``admin.`` ones (Kafka Connect's
prefixes) to that kind only. ``namespace`` prefixes every topic, group and transactional id, so several
logs can share one cluster without seeing each other. Setting names are librdkafka's (mostly Kafka's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl, quote, urlencode

from conveyor.log.errors import InvalidLogUrlError
from conveyor.log.kafka.security import librdkafka_settings

ClientKind = Literal["producer", "consumer", "admin"]
CLIENT_KINDS: tuple[ClientKind, ...] = ("producer", "consumer", "admin")
NAMESPACE = "namespace"
CLIENT_DEFAULTS: Mapping[str, object] = {"enable.metrics.push": False}
"""librdkafka settings every client starts from, under the URL's own. Pushing client metrics to the
brokers (KIP-714) has librdkafka keep latency histograms for each broker connection from the start,
about 275 KB of each client's 520 KB idle; ``enable.metrics.push=true`` (or ``producer.``, ``consumer.``,
``admin.`` prefixed) turns it back on."""
RECONNECT_BACKOFF_MS = 20
"""The log's producers and consumers reconnect after 20 ms, not librdkafka's 100: it holds back its next
connection for half of this once it drops its bootstrap one, so a consumer assigned right after it was
made waited 50 ms for its first fetch (19 starts of 40), and a transactional producer's first look for
its coordinator found no broker up and tried again only 500 ms later (3 tries of 20)."""


@dataclass(frozen=True)
class KafkaSettings:
    """A parsed ``kafka://`` URL."""

    bootstrap_servers: str
    common: Mapping[str, str] = field(default_factory=dict)
    per_client: Mapping[ClientKind, Mapping[str, str]] = field(default_factory=dict)
    namespace: str = ""

    @classmethod
    def from_url(cls, url: str) -> KafkaSettings:
        scheme, _, rest = url.partition("://")
        if scheme != "kafka" or not rest:
            raise InvalidLogUrlError(f"Log URL {url!r} is not kafka://host:port[,host:port...][?settings]")
        servers, _, query = rest.partition("?")
        servers = servers.rstrip("/")
        if not servers or any(":" not in server for server in servers.split(",")):
            raise InvalidLogUrlError(f"Log URL {url!r} must name brokers as host:port[,host:port...]")
        common: dict[str, str] = {}
        per_client: dict[ClientKind, dict[str, str]] = {kind: {} for kind in CLIENT_KINDS}
        namespace = ""
        for key, value in parse_qsl(query, keep_blank_values=True):
            kind, dot, name = key.partition(".")
            if key == NAMESPACE:
                namespace = value
            elif dot and kind in CLIENT_KINDS:
                per_client[kind][name] = value
            else:
                common[key] = value
        return cls(servers, common, per_client, namespace)

    def url(self) -> str:
        """The URL these settings were read from (in a canonical order)."""
        query = [*self.common.items()]
        for kind in CLIENT_KINDS:
            query += [(f"{kind}.{name}", value) for name, value in self.per_client.get(kind, {}).items()]
        if self.namespace:
            query.append((NAMESPACE, self.namespace))
        suffix = f"?{urlencode(query, quote_via=quote)}" if query else ""
        return f"kafka://{self.bootstrap_servers}{suffix}"

    def with_client_settings(self, kind: ClientKind, settings: Mapping[str, str]) -> KafkaSettings:
        """These settings with ``settings`` added to (and winning over) one kind of client's own."""
        per_client = {**self.per_client, kind: {**self.per_client.get(kind, {}), **settings}}
        return KafkaSettings(self.bootstrap_servers, self.common, per_client, self.namespace)

    def client_config(self, kind: ClientKind, **overrides: object) -> dict[str, object]:
        """librdkafka settings of one client: `CLIENT_DEFAULTS`, brokers, common settings, the kind's own,
        ``overrides`` (Kafka's Java security keys translated to librdkafka's)."""
        return librdkafka_settings(
            {
                **CLIENT_DEFAULTS,
                "bootstrap.servers": self.bootstrap_servers,
                **self.common,
                **self.per_client.get(kind, {}),
                **overrides,
            }
        )


def kafka_url_from_worker_props(props: Mapping[str, str]) -> str:
    """The ``kafka://`` URL of a worker whose ``bootstrap.servers`` names the cluster (Kafka Connect's keys).

    Client settings pass through: ``security.*``, ``sasl.*``, ``ssl.*`` and ``client.*`` to every client;
    ``producer.*``, ``consumer.*`` and ``admin.*`` to that kind of client.
    """
    servers = ",".join(part.strip() for part in props["bootstrap.servers"].split(",") if part.strip())
    common = {
        key: value
        for key, value in props.items()
        if key.startswith(("security.", "sasl.", "ssl.")) or key in ("client.id", "client.dns.lookup")
    }
    per_client: dict[ClientKind, dict[str, str]] = {kind: {} for kind in CLIENT_KINDS}
    for key, value in props.items():
        kind, dot, name = key.partition(".")
        if dot and kind in CLIENT_KINDS and not name.startswith("override."):
            per_client[kind][name] = value
    return KafkaSettings(servers, common, per_client).url()
