"""A connector's client overrides (`producer.override.*`, `consumer.override.*`, `admin.override.*`) and
the worker's `connector.client.config.override.policy` that allows them, as in Kafka Connect.

The policies are Kafka's: `None` allows no override, `Principal` only the client's principal, `Allowlist`
(KIP-1188) the settings `connector.client.config.override.allowlist` names, `All` (the default) every
setting. Whatever the policy, a setting that would make the worker load code, run a command, read a file
or reach a URL is refused unless the worker allows it explicitly (`conveyor.settings.unsafe_overrides`).
A refused override is refused when the connector config is validated, and again when a task starts (a
config written before the worker's settings changed).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from conveyor.errors import ConfigError, ConnectError
from conveyor.log.api import IsolationLevel
from conveyor.log.errors import InvalidConfigError
from conveyor.settings.unsafe_overrides import NO_UNSAFE_OVERRIDES, UnsafeOverrides

logger = logging.getLogger(__name__)

T = TypeVar("T")

OVERRIDE_POLICY_CONFIG = "connector.client.config.override.policy"
ALLOWLIST_CONFIG = "connector.client.config.override.allowlist"
ALLOWLIST = "Allowlist"
POLICY_PACKAGE = "org.apache.kafka.connect.connector.policy."
DLQ_TOPIC_CONFIG = "errors.deadletterqueue.topic.name"
ISOLATION_LEVEL = "isolation.level"
LOG_URL_SETTING = "log.url"
"""Conveyor's name for the log a client reads (a sink's `consumer.override.log.url`): chosen with the
task's log, never a setting of the client itself."""


class ClientType(enum.Enum):
    """The kinds of client a task uses, named as their override prefixes are."""

    PRODUCER = "producer"
    CONSUMER = "consumer"
    ADMIN = "admin"

    @property
    def prefix(self) -> str:
        return f"{self.value}.override."


@dataclass(frozen=True)
class OverridePolicy:
    """One of Kafka's override policies (`allowed` is None when it allows every setting), with the unsafe
    settings the worker lets through whatever the policy."""

    name: str
    allowed: frozenset[str] | None
    unsafe: UnsafeOverrides = NO_UNSAFE_OVERRIDES

    def violation(self, setting: str, value: str) -> str | None:
        """Why an override of `setting` with `value` is refused (Kafka's message when the policy refuses
        it); None when it is allowed."""
        unsafe = self.unsafe_refusal(setting, value)
        if unsafe is not None:
            return unsafe
        if self.allowed is None or setting in self.allowed:
            return None
        return (
            f"The '{self.name}' policy does not allow '{setting}' to be overridden in the connector "
            "configuration."
        )

    def unsafe_refusal(self, setting: str, value: str) -> str | None:
        """Why `setting` is refused whatever the policy; None if it is safe or the worker allows it."""
        if setting == LOG_URL_SETTING:
            return self.unsafe.log_url_refusal(value)
        return self.unsafe.refusal(setting, value)


POLICIES = {
    policy.name: policy
    for policy in (
        OverridePolicy("None", frozenset()),
        # Kafka's principal settings, and librdkafka's form of sasl.jaas.config (which it refuses).
        OverridePolicy(
            "Principal",
            frozenset(
                {"sasl.jaas.config", "sasl.mechanism", "security.protocol", "sasl.username", "sasl.password"}
            ),
        ),
        OverridePolicy(ALLOWLIST, frozenset()),
        OverridePolicy("All", None),
    )
}


def override_policy(
    name: str, allowlist: Iterable[str] = (), unsafe: UnsafeOverrides = NO_UNSAFE_OVERRIDES
) -> OverridePolicy:
    """The policy a worker names by alias (`All`), class name or fully qualified Kafka class name; the
    `Allowlist` policy allows the settings `allowlist` names."""
    alias = name.strip().removeprefix(POLICY_PACKAGE).removesuffix("ConnectorClientConfigOverridePolicy")
    policy = POLICIES.get(alias)
    if policy is None:
        raise ConfigError(
            OVERRIDE_POLICY_CONFIG, name, f"Must be one of {', '.join(POLICIES)} (or their Kafka class names)"
        )
    if alias == ALLOWLIST:
        policy = replace(policy, allowed=frozenset(key.strip() for key in allowlist if key.strip()))
    return replace(policy, unsafe=unsafe)


def ensure_override_policy(name: str, value: object) -> None:
    """A worker config validator: `value` names a known policy."""
    override_policy(str(value))


def client_overrides(config: Mapping[str, str], client: ClientType) -> dict[str, str]:
    """The connector's overrides of one kind of client, without their prefix."""
    return {
        key[len(client.prefix) :]: value for key, value in config.items() if key.startswith(client.prefix)
    }


def clients_used(config: Mapping[str, str], is_source: bool, exactly_once: bool) -> list[ClientType]:
    """The clients a connector's tasks use, whose overrides are validated (Kafka's `connectorUses*`):
    a source's producer, and its admin and consumer for topic creation or an offsets topic of its own; a
    sink's consumer, and its producer and admin for a dead letter queue."""
    if is_source:
        own_offsets = exactly_once or bool(config.get("offsets.storage.topic", "").strip())
        creates_topics = any(key.startswith("topic.creation.") for key in config)
        return [
            ClientType.PRODUCER,
            *([ClientType.ADMIN] if creates_topics or own_offsets else []),
            *([ClientType.CONSUMER] if own_offsets else []),
        ]
    dead_letters = bool(config.get(DLQ_TOPIC_CONFIG, "").strip())
    return [ClientType.CONSUMER, *([ClientType.PRODUCER, ClientType.ADMIN] if dead_letters else [])]


def override_violations(
    policy: OverridePolicy, config: Mapping[str, str], clients: list[ClientType]
) -> dict[str, str]:
    """Each override `policy` refuses, by full key (`producer.override.linger.ms`), with its message: the
    overrides of `clients` (those the tasks use), and the unsafe overrides of every client."""
    violations: dict[str, str] = {}
    for client in ClientType:
        for setting, value in client_overrides(config, client).items():
            if client in clients:
                message = policy.violation(setting, value)
            else:
                message = policy.unsafe_refusal(setting, value)
            if message is not None:
                violations[client.prefix + setting] = message
    return violations


def log_url_refusals(policy: OverridePolicy, config: Mapping[str, str]) -> dict[str, str]:
    """Each log URL a connector opens itself (a key named `log.url` or ending in `.log.url`, such as
    MirrorMaker's `source.cluster.log.url`) whose client settings the worker refuses, by key, with why;
    client overrides are left to `override_violations`."""
    refusals: dict[str, str] = {}
    for key, value in config.items():
        names_a_log = key == LOG_URL_SETTING or key.endswith(f".{LOG_URL_SETTING}")
        if not names_a_log or any(key.startswith(client.prefix) for client in ClientType):
            continue
        refusal = policy.unsafe.log_url_refusal(value)
        if refusal is not None:
            refusals[key] = refusal
    return refusals


def refuse_unsafe_log_urls(policy: OverridePolicy, *configs: Mapping[str, str]) -> None:
    """Fail a connector or task whose stored configs name a log URL the worker refuses (validation should
    have refused them already)."""
    refused = {key: why for config in configs for key, why in log_url_refusals(policy, config).items()}
    if refused:
        raise ConnectError(f"Log URLs not allowed {refused}")


def allowed_overrides(
    policy: OverridePolicy, config: Mapping[str, str], client: ClientType
) -> dict[str, str]:
    """The overrides a task's client gets; a task whose connector's overrides the policy refuses fails, as
    Kafka's `Worker` fails it (validation should have refused the config already)."""
    overrides = client_overrides(config, client)
    refused = [
        message
        for setting, value in overrides.items()
        if (message := policy.violation(setting, value)) is not None
    ]
    if refused:
        raise ConnectError(f"Client Config Overrides not allowed {refused}")
    return overrides


def built_with_overrides(client: ClientType, overrides: Mapping[str, str], build: Callable[[], T]) -> T:
    """A client `build` makes; when its settings are refused and the connector overrides some, the error
    names those overrides by their full keys (librdkafka's own message may name a setting by an alias)."""
    try:
        return build()
    except InvalidConfigError as error:
        if not overrides:
            raise
        keys = ", ".join(client.prefix + setting for setting in overrides)
        raise ConnectError(
            f"The {client.value} client refused its settings, which include the connector's {keys}: {error}"
        ) from error


@dataclass(frozen=True)
class OffsetsConsumerSettings:
    """What a source task's offsets consumer gets beyond the worker's own `consumer.*` settings."""

    isolation_level: IsolationLevel
    overrides: dict[str, str]


def source_offsets_consumer(
    policy: OverridePolicy, config: Mapping[str, str], exactly_once: bool
) -> OffsetsConsumerSettings:
    """The settings of the consumer a source task's offsets are read with, as Kafka's `Worker` makes it.

    A task that reads an offsets store of its connector's own (exactly-once, or an
    `offsets.storage.topic`: `exactlyOnceSourceOffsetsConsumerConfigs`,
    `regularSourceOffsetsConsumerConfigs`) gets the connector's `consumer.override.*` and reads
    read_committed: exactly-once support forces it over an override, a regular task's override may change
    it. A task that reads the worker's offsets topic through the worker's store gets no override.
    """
    if ClientType.CONSUMER not in clients_used(config, is_source=True, exactly_once=exactly_once):
        return OffsetsConsumerSettings("read_committed", {})
    overrides = allowed_overrides(policy, config, ClientType.CONSUMER)
    overrides.pop(LOG_URL_SETTING, None)
    isolation = overrides.pop(ISOLATION_LEVEL, "read_committed").strip().lower()
    if exactly_once and isolation != "read_committed":
        logger.warning(
            "Ignoring %s%s=%s: exactly-once source support reads offsets read_committed",
            ClientType.CONSUMER.prefix,
            ISOLATION_LEVEL,
            isolation,
        )
        isolation = "read_committed"
    return OffsetsConsumerSettings(_isolation_level(isolation), overrides)


def _isolation_level(value: str) -> IsolationLevel:
    if value == "read_committed":
        return "read_committed"
    if value == "read_uncommitted":
        return "read_uncommitted"
    raise ConnectError(
        f"{ClientType.CONSUMER.prefix}{ISOLATION_LEVEL}={value!r} is not read_committed or read_uncommitted"
    )
