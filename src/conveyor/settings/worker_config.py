"""The worker's settings, parsed once by one definition under Kafka Connect's property names.

`WorkerConfig.from_props` resolves config provider variables (as Kafka resolves a worker config at
startup), parses every key with `WORKER_CONFIG_DEF` and returns a frozen, picklable object that the
worker, the herder and every task (on its executor) read by attribute.
"""

from __future__ import annotations

import enum
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conveyor.api.config import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigType,
    Importance,
    LambdaValidator,
    NonEmptyString,
    Range,
)
from conveyor.errors import ConfigError
from conveyor.log import worker_log_url
from conveyor.metrics.metric_groups import MetricNaming
from conveyor.plugins.plugin_path import ModuleInfo
from conveyor.settings.client_overrides import (
    ALLOWLIST_CONFIG,
    OVERRIDE_POLICY_CONFIG,
    POLICIES,
    OverridePolicy,
    ensure_override_policy,
    override_policy,
)
from conveyor.settings.config_providers import CONFIG_PROVIDERS_CONFIG, ConfigProviders
from conveyor.settings.mac_algorithms import ensure_mac_algorithm, ensure_mac_algorithms, key_size_bytes
from conveyor.settings.memory_sizes import ensure_memory_limit, memory_limit_bytes
from conveyor.settings.ssl_config import (
    ADMIN_LISTENERS_HTTPS_PREFIX,
    LISTENERS_HTTPS_PREFIX,
    SSL_PREFIXES,
    SslConfig,
    define_ssl_keys,
    ssl_config,
)
from conveyor.settings.unsafe_overrides import (
    ALLOWED_PATHS_CONFIG,
    ALLOWED_UNSAFE_KEYS_CONFIG,
    ALLOWED_URLS_CONFIG,
    UnsafeOverrides,
    allowed_oauth_urls,
    refuse_unlisted_oauth_urls,
)

#: Keys Kafka Connect removed or that mean nothing here: accepted with a warning, never a failure.
IGNORED_KEYS: dict[str, str] = {
    "internal.key.converter": "removed in Kafka 3.0; internal topics always use JSON without schemas",
    "internal.value.converter": "removed in Kafka 3.0; internal topics always use JSON without schemas",
    "internal.key.converter.schemas.enable": "removed in Kafka 3.0",
    "internal.value.converter.schemas.enable": "removed in Kafka 3.0",
    "offset.storage.file.filename": "standalone offsets are kept in the log's offsets topic",
    "rest.host.name": "removed in Kafka 4.0; use listeners",
    "rest.port": "removed in Kafka 4.0; use listeners",
}

#: Prefixes whose keys configure a plugin or Spark rather than the worker itself.
PASS_THROUGH_PREFIXES = (
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "spark.",
    f"{CONFIG_PROVIDERS_CONFIG}.",
    # Kafka client settings, passed to the Kafka backend's clients (conveyor.log.kafka.settings).
    "producer.",
    "consumer.",
    "admin.",
    "security.",
    "sasl.",
    "ssl.",
)

INTER_WORKER_KEY_GENERATION_ALGORITHM = "inter.worker.key.generation.algorithm"
INTER_WORKER_KEY_SIZE = "inter.worker.key.size"
INTER_WORKER_KEY_TTL_MS = "inter.worker.key.ttl.ms"
INTER_WORKER_SIGNATURE_ALGORITHM = "inter.worker.signature.algorithm"
INTER_WORKER_VERIFICATION_ALGORITHMS = "inter.worker.verification.algorithms"
DEFAULT_MAC_ALGORITHM = "HmacSHA256"

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
DEFAULT_TASKS_PER_SLOT = 64
"""A task host costs about 13 MB and a task sharing one about 0.6 MB: 64 tasks to a process keep 100 tasks
in one process per core of a small machine, which is all the Python it runs at once anyway."""
TASK_MEMORY_LIMIT_CONFIG = "task.memory.limit"
DEFAULT_TASK_MEMORY_LIMIT = "2g"
"""Kafka Connect's default heap (`-Xmx2G`) for a whole worker: more than thirty times what a busy task
host holds (about 60 MB resident), so it refuses no task that works, and stops a runaway one before it
takes the machine."""


class TaskPlacement(enum.StrEnum):
    """`task.placement`: whether each task gets a Python process of its own while Spark slots are free
    (`spread`: isolation), or a new task gets a process of its own only while every process keeps a core
    busy or runs a task of its connector, up to one per core of the machine (`cores`: a core for each busy
    task and for each task of one connector, one process for idle connectors), or tasks fill a process
    up to `tasks.per.slot` before another starts (`pack`: about 0.6 MB a task instead of about 13 MB)."""

    SPREAD = "spread"
    CORES = "cores"
    PACK = "pack"


class ConnectProtocolMode(enum.StrEnum):
    """`connect.protocol`: how the group rebalances (KIP-415) and whether it signs requests (KIP-507)."""

    EAGER = "eager"
    COMPATIBLE = "compatible"
    SESSIONED = "sessioned"


class ExactlyOnceSourceSupport(enum.StrEnum):
    """The worker's `exactly.once.source.support` (KIP-618); only ENABLED runs transactional tasks."""

    DISABLED = "disabled"
    PREPARING = "preparing"
    ENABLED = "enabled"


METRICS_NAMES_CONFIG = "metrics.names"
JVM_CLASS_ARCHIVE_CONFIG = "jvm.class.archive.enable"


def _ensure_metric_namings(name: str, value: object) -> None:
    namings = value if isinstance(value, list) else []
    known = {naming.value for naming in MetricNaming}
    if not namings or any(str(naming).lower() not in known for naming in namings):
        raise ConfigError(name, value, "Give strimzi, jmx-default, or both comma-separated")


def _ensure_replication_factor(name: str, value: object) -> None:
    if value is None:
        return
    if not isinstance(value, int) or (value < 1 and value != -1):
        raise ConfigError(name, value, "Replication factor must be positive, or -1 for the broker's default")


def _worker_config_def() -> ConfigDef:
    """Every worker key Conveyor reads, with Kafka Connect's defaults where Kafka defines the key."""
    high, medium, low = Importance.HIGH, Importance.MEDIUM, Importance.LOW
    positive = Range.at_least(1)
    non_negative = Range.at_least(0)
    replication = LambdaValidator(_ensure_replication_factor, "Positive number, or -1 for the broker default")
    replication_doc = (
        "Copies Kafka keeps of the internal topic when Conveyor creates it: 3 for a worker "
        "group as in Kafka Connect, the broker's default (-1) for a standalone worker; the "
        "embedded log keeps one copy whatever this says."
    )
    mac_algorithm = LambdaValidator(ensure_mac_algorithm, "Any HMAC algorithm supported by the worker")
    mac_algorithms = LambdaValidator(ensure_mac_algorithms, "One or more HMAC algorithms the worker supports")
    return (
        ConfigDef()
        .define("group.id", ConfigType.STRING, default=None, importance=high,
                documentation="The worker group; connect-standalone or connect-cluster when unset.")
        .define("bootstrap.servers", ConfigType.LIST, default=[], importance=high,
                documentation="Kafka brokers; accepted with a warning until the Kafka backend is available.")
        .define("log.url", ConfigType.STRING, default="", importance=high,
                documentation="The log; embedded:<data.dir>/log when empty.")
        .define("data.dir", ConfigType.STRING, default=None, importance=medium,
                documentation="Where the embedded log lives; ./conveyor-data when unset.")
        .define("listeners", ConfigType.STRING, default="http://127.0.0.1:8083", importance=low,
                documentation="Where the REST API listens.")
        .define("rest.advertised.host.name", ConfigType.STRING, default=None, importance=low,
                documentation="The host other workers and clients reach this worker at.")
        .define("rest.advertised.port", ConfigType.INT, default=None, importance=low,
                documentation="The port other workers and clients reach this worker at.")
        .define("rest.advertised.listener", ConfigType.STRING, default=None, importance=low,
                documentation="http or https: the listener whose URL other workers are given.")
        .define("rest.extension.classes", ConfigType.LIST, default=[], importance=low,
                documentation="ConnectRestExtension classes to load and register with the REST API, "
                "in order (e.g. Kafka's BasicAuthSecurityRestExtension).")
        .define("java.security.auth.login.config", ConfigType.STRING, default=None, importance=low,
                documentation="The JAAS file BasicAuthSecurityRestExtension reads (Kafka takes it as a "
                "JVM system property).")
        .define("admin.listeners", ConfigType.LIST, default=None, importance=low,
                documentation="Where the /admin endpoints listen; empty disables them, unset serves them "
                "on the regular listeners.")
        .define("access.control.allow.origin", ConfigType.STRING, default="", importance=low,
                documentation="The origins CORS lets call the REST API ('*' for any); empty turns CORS off.")
        .define("access.control.allow.methods", ConfigType.STRING, default="", importance=low,
                documentation="The methods CORS allows; GET,POST,HEAD when empty.")
        .define("offset.storage.topic", ConfigType.STRING, default="connect-offsets",
                validator=NonEmptyString(), importance=high)
        .define("config.storage.topic", ConfigType.STRING, default="connect-configs",
                validator=NonEmptyString(), importance=high)
        .define("status.storage.topic", ConfigType.STRING, default="connect-status",
                validator=NonEmptyString(), importance=high)
        .define("offset.storage.partitions", ConfigType.INT, default=25, validator=positive, importance=low)
        .define("status.storage.partitions", ConfigType.INT, default=5, validator=positive, importance=low)
        .define("offset.storage.replication.factor", ConfigType.SHORT, default=None, validator=replication,
                importance=low, documentation=replication_doc)
        .define("config.storage.replication.factor", ConfigType.SHORT, default=None, validator=replication,
                importance=low, documentation=replication_doc)
        .define("status.storage.replication.factor", ConfigType.SHORT, default=None, validator=replication,
                importance=low, documentation=replication_doc)
        .define("internal.topics.automatic.creation.enable", ConfigType.BOOLEAN, default=True,
                importance=low, documentation="Whether the worker creates its config, offset and status "
                "topics when they are missing (KIP-1209); when false, a missing one fails start-up.")
        .define("offset.flush.interval.ms", ConfigType.LONG, default=60000, validator=non_negative,
                importance=low, documentation="Interval at which to try committing offsets for tasks.")
        .define("offset.flush.timeout.ms", ConfigType.LONG, default=5000, validator=non_negative,
                importance=low)
        .define("task.shutdown.graceful.timeout.ms", ConfigType.LONG, default=5000,
                validator=non_negative, importance=low)
        .define("connector.call.timeout.ms", ConfigType.LONG, default=30_000, validator=positive,
                importance=low, documentation="How long a call into a connector's own code (start, "
                "task_configs, validate, config) may take before the connector is marked FAILED as "
                "stuck and the call is abandoned.")
        .define("exactly.once.source.support", ConfigType.STRING,
                default=ExactlyOnceSourceSupport.DISABLED.value,
                validator=CaseInsensitiveValidString([s.value for s in ExactlyOnceSourceSupport]),
                importance=high)
        .define("producer.transaction.timeout.ms", ConfigType.INT, default=60000, validator=positive,
                importance=low, documentation="Transaction timeout of exactly-once task producers.")
        .define("transactional.id", ConfigType.STRING, default=None, importance=low,
                documentation="The leader's transactional id for config topic writes; "
                "connect-cluster-<group.id> when unset.")
        .define("connect.protocol", ConfigType.STRING, default=ConnectProtocolMode.SESSIONED.value,
                validator=CaseInsensitiveValidString([m.value for m in ConnectProtocolMode]),
                importance=low, documentation="The worker group's protocol: eager, compatible or sessioned.")
        .define("session.timeout.ms", ConfigType.INT, default=10_000, validator=positive, importance=high,
                documentation="A worker that sends no heartbeat for this long leaves the group.")
        .define("heartbeat.interval.ms", ConfigType.INT, default=3_000, validator=positive,
                importance=high, documentation="How often a worker heartbeats to the group coordinator.")
        .define("rebalance.timeout.ms", ConfigType.INT, default=60_000, validator=positive,
                importance=high, documentation="How long the group waits for every worker to rejoin.")
        .define("worker.sync.timeout.ms", ConfigType.INT, default=3_000, validator=positive,
                importance=medium, documentation="How long a worker may take to read the config topic to "
                "the assignment's offset before it leaves the group.")
        .define("worker.unsync.backoff.ms", ConfigType.INT, default=300_000, validator=non_negative,
                importance=medium, documentation="How long a worker that could not catch up waits before "
                "it rejoins.")
        .define("scheduled.rebalance.max.delay.ms", ConfigType.INT, default=300_000,
                validator=Range.between(0, 2**31 - 1), importance=low,
                documentation="How long the work of a departed worker waits for it to come back.")
        .define("key.converter", ConfigType.STRING, default=JSON_CONVERTER, importance=high)
        .define("value.converter", ConfigType.STRING, default=JSON_CONVERTER, importance=high)
        .define("header.converter", ConfigType.STRING, default=SIMPLE_HEADER_CONVERTER, importance=low)
        .define("spark.master", ConfigType.STRING, default=None, importance=medium)
        .define("task.control.port", ConfigType.INT, default=0, validator=Range.between(0, 65535),
                importance=low, documentation="The port of the control channel executors reach their "
                "worker's tasks through; 0 takes any free one.")
        .define("plugin.path", ConfigType.LIST, default=[], importance=low,
                documentation="Directories of Python modules, packages and wheels to load plugins from; "
                "the worker ships them to its Spark executors.")
        .define("task.restart.enable", ConfigType.BOOLEAN, default=True, importance=low)
        .define("task.restart.backoff.initial.ms", ConfigType.LONG, default=1000, validator=non_negative,
                importance=low)
        .define("task.restart.backoff.max.ms", ConfigType.LONG, default=60000, validator=non_negative,
                importance=low)
        .define("task.lease.ms", ConfigType.LONG, default=10000, validator=positive, importance=low)
        .define("table.formats", ConfigType.LIST, default=[], importance=low,
                documentation="Table formats the worker's SparkSession loads for Spark sinks: delta, "
                "iceberg (jars fetched with Maven, extensions and catalogs set at start).")
        .define(JVM_CLASS_ARCHIVE_CONFIG, ConfigType.BOOLEAN, default=True, importance=low,
                documentation="Start Spark's JVM from an archive of the classes it loads, kept in "
                "Conveyor's cache directory (~/.cache/conveyor/spark-class-archives) and written once by "
                "the first worker for that JDK, Spark's jars, spark.jars and JVM options.")
        .define("iceberg.warehouse", ConfigType.STRING, default=None, importance=low,
                documentation="The warehouse directory of the worker's Iceberg catalog; "
                "<data.dir>/iceberg when unset.")
        .define("rest.request.max.bytes", ConfigType.INT, default=1024 * 1024, validator=positive,
                importance=low, documentation="The largest request body the REST API accepts; a larger "
                "one is answered 413.")
        .define("tasks.per.slot", ConfigType.INT, default=DEFAULT_TASKS_PER_SLOT, validator=positive,
                importance=low,
                documentation="How many tasks may share one Spark task slot, as threads of one Python "
                "process: once every slot runs a task (task.placement=spread), from the first task unless "
                "every process keeps a core busy (cores), or from the first task (pack).")
        .define("task.placement", ConfigType.STRING, default=TaskPlacement.CORES.value, importance=low,
                validator=CaseInsensitiveValidString([p.value for p in TaskPlacement]),
                documentation="cores: a new task gets a Python process of its own while every process "
                "keeps a core busy (a quarter of a core or more over the last 10 s) or runs a task of the "
                "same connector, up to one process per core of the machine (with a local spark.master; "
                "per Spark slot otherwise), else it joins the least busy process; processes hold up to "
                "tasks.per.slot tasks each before another starts; spread: each task gets a process of its "
                "own while Spark slots are free, then tasks share processes; pack: tasks fill a process "
                "up to tasks.per.slot before another starts (tasks of a process share its memory limit, "
                "its interpreter lock and its fate).")
        .define(TASK_MEMORY_LIMIT_CONFIG, ConfigType.STRING, default=DEFAULT_TASK_MEMORY_LIMIT,
                importance=medium,
                validator=LambdaValidator(ensure_memory_limit, "A size such as 512m or 2g, or 0 or none"),
                documentation="The resident memory a task host (the Python process that runs tasks on "
                "an executor) may hold, shared by the tasks it hosts: beyond it they fail with "
                "MemoryError and restart. A size such as 512m or 2g; 0 or none for no limit.")
        .define("topic.tracking.enable", ConfigType.BOOLEAN, default=True, importance=low,
                documentation="Enable tracking the set of active topics per connector during runtime.")
        .define("topic.tracking.allow.reset", ConfigType.BOOLEAN, default=True, importance=low,
                documentation="If set to true, it allows user requests to reset the set of active topics "
                "per connector.")
        .define(METRICS_NAMES_CONFIG, ConfigType.LIST, default=[MetricNaming.JMX_DEFAULT.value],
                importance=low,
                validator=LambdaValidator(_ensure_metric_namings, "strimzi, jmx-default or both"),
                documentation="How GET /metrics names Kafka Connect's metrics: jmx-default (the JMX "
                "exporter's default rules), strimzi (Strimzi's kafka-connect exporter rules), or both, "
                "comma-separated.")
        .define(OVERRIDE_POLICY_CONFIG, ConfigType.STRING, default="All", importance=medium,
                validator=LambdaValidator(ensure_override_policy, "One of None, Principal, Allowlist, All"),
                documentation="Which client settings a connector may override (producer.override.*, "
                "consumer.override.*, admin.override.*): None, Principal (the client's principal), "
                f"Allowlist (those {ALLOWLIST_CONFIG} names) or All, or their Kafka class names.")
        .define(ALLOWLIST_CONFIG, ConfigType.LIST, default=[], importance=medium,
                documentation="The client settings connectors may override under the Allowlist policy; "
                "none when empty.")
        .define(ALLOWED_UNSAFE_KEYS_CONFIG, ConfigType.LIST, default=[], importance=medium,
                documentation="Client settings that load code, run commands, read files or reach URLs "
                "which connectors may override all the same (as the policy allows); an OAuth URL must "
                f"also be listed in {ALLOWED_URLS_CONFIG}.")
        .define(ALLOWED_PATHS_CONFIG, ConfigType.LIST, default=[], importance=medium,
                documentation="Directories whose files the file settings of connectors' client overrides "
                "(ssl.ca.location, ...) may name; symlinks and '..' are resolved first.")
        .define(ALLOWED_URLS_CONFIG, ConfigType.LIST, default=None, importance=medium,
                documentation="The OAuth token and JWKS URLs Kafka clients may reach, the worker's and "
                "connectors' alike (Kafka's JVM property, also read from -D in KAFKA_OPTS); none when "
                "empty.")
        .define(CONFIG_PROVIDERS_CONFIG, ConfigType.LIST, default=[], importance=low,
                documentation="Names of the config providers that resolve ${provider:path:key} variables.")
        .define(INTER_WORKER_KEY_TTL_MS, ConfigType.INT, default=3_600_000,
                validator=Range.between(0, 2**31 - 1), importance=low,
                documentation="The TTL of generated session keys used for internal request validation "
                "(in milliseconds)")
        .define(INTER_WORKER_KEY_GENERATION_ALGORITHM, ConfigType.STRING, default=DEFAULT_MAC_ALGORITHM,
                validator=mac_algorithm,
                importance=low, documentation="The algorithm to use for generating internal request keys.")
        .define(INTER_WORKER_KEY_SIZE, ConfigType.INT, default=None, importance=low,
                documentation="The size of the key to use for signing internal requests, in bits. If null, "
                "the default key size for the key generation algorithm will be used.")
        .define(INTER_WORKER_SIGNATURE_ALGORITHM, ConfigType.STRING, default=DEFAULT_MAC_ALGORITHM,
                validator=mac_algorithm,
                importance=low, documentation="The algorithm used to sign internal requests.")
        .define(INTER_WORKER_VERIFICATION_ALGORITHMS, ConfigType.LIST, default=[DEFAULT_MAC_ALGORITHM],
                validator=mac_algorithms,
                importance=low,
                documentation="A list of permitted algorithms for verifying internal requests, which must "
                f"include the algorithm used for the {INTER_WORKER_SIGNATURE_ALGORITHM} property.")
    )  # fmt: skip


def _with_ssl_keys(config_def: ConfigDef) -> ConfigDef:
    for prefix in SSL_PREFIXES:
        define_ssl_keys(config_def, prefix)
    return config_def


WORKER_CONFIG_DEF = _with_ssl_keys(_worker_config_def())


@dataclass(frozen=True)
class WorkerConfig:
    """A worker's parsed settings; `props` keeps every (resolved) original key for plugins and Spark.

    Frozen and picklable: each task carries it to its executor in its `TaskSpec`.
    """

    props: Mapping[str, str]
    group_id: str
    log_url: str
    data_dir: Path
    listeners: str
    advertised_host: str | None
    advertised_port: int | None
    advertised_listener: str | None
    admin_listeners: str | None
    rest_ssl: SslConfig
    admin_ssl: SslConfig
    rest_extension_classes: tuple[str, ...]
    cors_allowed_origins: str
    cors_allowed_methods: str
    offsets_topic: str
    configs_topic: str
    status_topic: str
    offsets_partitions: int
    status_partitions: int
    offsets_replication_factor: int
    configs_replication_factor: int
    status_replication_factor: int
    internal_topics_creation: bool
    offset_flush_interval_ms: int
    offset_flush_timeout_ms: int
    graceful_shutdown_timeout_ms: int
    exactly_once_source_support: ExactlyOnceSourceSupport
    producer_transaction_timeout_ms: int
    key_generation_algorithm: str
    key_size_bits: int | None
    key_ttl_ms: int
    signature_algorithm: str
    verification_algorithms: tuple[str, ...]
    key_converter: str
    value_converter: str
    header_converter: str
    spark_master: str | None
    task_restart_enabled: bool
    task_restart_initial_ms: int
    task_restart_max_ms: int
    task_lease_ms: int
    tasks_per_slot: int
    topic_tracking_enable: bool
    topic_tracking_allow_reset: bool
    rest_request_max_bytes: int
    task_placement: TaskPlacement = TaskPlacement.CORES
    task_memory_limit_bytes: int | None = 2 * 1024**3
    """`task.memory.limit` in bytes: the resident memory of a task host beyond which its tasks fail."""
    metric_namings: tuple[MetricNaming, ...] = (MetricNaming.JMX_DEFAULT,)
    """How `GET /metrics` names Kafka Connect's metrics (`metrics.names`), in the order given."""
    transactional_id: str | None = None
    task_control_port: int = 0
    plugin_path: tuple[str, ...] = ()
    plugin_modules: tuple[str, ...] = ()
    table_formats: tuple[str, ...] = ()
    """The table formats (``delta``, ``iceberg``) the worker's SparkSession loads."""
    iceberg_warehouse: Path | None = None
    jvm_class_archive: bool = True
    """Whether Spark's JVM maps (or, the first time, writes) an archive of its classes."""
    """The top-level modules of the plugin.path plugins the worker loaded, for executors to register."""
    plugin_module_info: tuple[ModuleInfo, ...] = ()
    """How each of ``plugin_modules`` is listed and its version (several versions of one plugin)."""
    connect_protocol: ConnectProtocolMode = ConnectProtocolMode.SESSIONED
    session_timeout_ms: int = 10_000
    heartbeat_interval_ms: int = 3_000
    rebalance_timeout_ms: int = 60_000
    worker_sync_timeout_ms: int = 3_000
    worker_unsync_backoff_ms: int = 300_000
    scheduled_rebalance_max_delay_ms: int = 300_000
    connector_call_timeout_ms: int = 30_000
    client_override_policy: OverridePolicy = POLICIES["All"]
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def exactly_once_source_enabled(self) -> bool:
        return self.exactly_once_source_support is ExactlyOnceSourceSupport.ENABLED

    @property
    def transactional_leader_enabled(self) -> bool:
        """KIP-618: under `preparing` and `enabled` the leader writes the config topic transactionally."""
        return self.exactly_once_source_support is not ExactlyOnceSourceSupport.DISABLED

    @property
    def leader_transactional_id(self) -> str:
        return self.transactional_id or f"connect-cluster-{self.group_id}"

    @property
    def control_channel_host(self) -> str:
        """The address executors reach the worker's control channel at: the Spark driver's host, since
        executors reach the driver there already."""
        return self.props.get("spark.driver.host") or os.environ.get("SPARK_LOCAL_IP") or "127.0.0.1"

    @property
    def control_channel_bind_host(self) -> str:
        """The address the control channel listens on: the driver's bind address when one is set."""
        return self.props.get("spark.driver.bindAddress") or self.control_channel_host

    def spark_conf(self) -> dict[str, str]:
        """Every `spark.*` property except the master, for the worker's SparkSession; Spark's UI is on
        unless `spark.ui.enabled=false` (the console's workers view links to it)."""
        given = {k: v for k, v in self.props.items() if k.startswith("spark.") and k != "spark.master"}
        return {"spark.ui.enabled": "true", **given}

    def converter(self, key: str) -> tuple[str, dict[str, str]]:
        """The worker's default converter for `key` (`key.converter`, ...) and its prefixed settings."""
        class_name = {
            "key.converter": self.key_converter,
            "value.converter": self.value_converter,
            "header.converter": self.header_converter,
        }[key]
        prefix = key + "."
        return class_name, {k[len(prefix) :]: v for k, v in self.props.items() if k.startswith(prefix)}

    @classmethod
    def from_props(cls, props: Mapping[str, str], *, standalone: bool = True) -> WorkerConfig:
        """Resolve, parse and check worker properties; raises `ConfigError` naming a bad key."""
        raw = {k.strip(): str(v).strip() for k, v in props.items()}
        with ConfigProviders.from_worker_props(raw) as providers:
            values = providers.transform(raw)
        parsed = WORKER_CONFIG_DEF.parse(values)
        _check_inter_worker_keys(parsed)
        warnings = _warnings(values)
        data_dir = Path(parsed["data.dir"] or os.path.join(os.getcwd(), "conveyor-data")).resolve()
        log_url = parsed["log.url"] or worker_log_url(values, ",".join(parsed["bootstrap.servers"]), data_dir)
        warnings.extend(_cluster_warnings(parsed["spark.master"], log_url))
        oauth_urls = allowed_oauth_urls(parsed[ALLOWED_URLS_CONFIG])
        refuse_unlisted_oauth_urls(log_url, oauth_urls)
        unsafe = UnsafeOverrides.of(
            parsed[ALLOWED_UNSAFE_KEYS_CONFIG], parsed[ALLOWED_PATHS_CONFIG], oauth_urls
        )
        group_default = "connect-standalone" if standalone else "connect-cluster"
        return cls(
            props=values,
            group_id=parsed["group.id"] or group_default,
            log_url=log_url,
            data_dir=data_dir,
            listeners=parsed["listeners"],
            advertised_host=parsed["rest.advertised.host.name"],
            advertised_port=parsed["rest.advertised.port"],
            advertised_listener=(parsed["rest.advertised.listener"] or "").lower() or None,
            admin_listeners=_joined_or_none(parsed["admin.listeners"]),
            rest_ssl=ssl_config(parsed, values, LISTENERS_HTTPS_PREFIX),
            admin_ssl=ssl_config(parsed, values, ADMIN_LISTENERS_HTTPS_PREFIX),
            rest_extension_classes=tuple(parsed["rest.extension.classes"]),
            cors_allowed_origins=parsed["access.control.allow.origin"],
            cors_allowed_methods=parsed["access.control.allow.methods"],
            offsets_topic=parsed["offset.storage.topic"],
            configs_topic=parsed["config.storage.topic"],
            status_topic=parsed["status.storage.topic"],
            offsets_partitions=parsed["offset.storage.partitions"],
            status_partitions=parsed["status.storage.partitions"],
            offsets_replication_factor=_replication(parsed, "offset", standalone),
            configs_replication_factor=_replication(parsed, "config", standalone),
            status_replication_factor=_replication(parsed, "status", standalone),
            internal_topics_creation=parsed["internal.topics.automatic.creation.enable"],
            offset_flush_interval_ms=parsed["offset.flush.interval.ms"],
            offset_flush_timeout_ms=parsed["offset.flush.timeout.ms"],
            graceful_shutdown_timeout_ms=parsed["task.shutdown.graceful.timeout.ms"],
            exactly_once_source_support=ExactlyOnceSourceSupport(
                parsed["exactly.once.source.support"].lower()
            ),
            producer_transaction_timeout_ms=parsed["producer.transaction.timeout.ms"],
            key_generation_algorithm=parsed[INTER_WORKER_KEY_GENERATION_ALGORITHM],
            key_size_bits=parsed[INTER_WORKER_KEY_SIZE],
            key_ttl_ms=parsed[INTER_WORKER_KEY_TTL_MS],
            signature_algorithm=parsed[INTER_WORKER_SIGNATURE_ALGORITHM],
            verification_algorithms=tuple(parsed[INTER_WORKER_VERIFICATION_ALGORITHMS]),
            key_converter=parsed["key.converter"],
            value_converter=parsed["value.converter"],
            header_converter=parsed["header.converter"],
            spark_master=parsed["spark.master"],
            task_restart_enabled=parsed["task.restart.enable"],
            task_restart_initial_ms=parsed["task.restart.backoff.initial.ms"],
            task_restart_max_ms=parsed["task.restart.backoff.max.ms"],
            rest_request_max_bytes=parsed["rest.request.max.bytes"],
            task_lease_ms=parsed["task.lease.ms"],
            tasks_per_slot=parsed["tasks.per.slot"],
            task_placement=TaskPlacement(parsed["task.placement"].lower()),
            task_memory_limit_bytes=memory_limit_bytes(
                TASK_MEMORY_LIMIT_CONFIG, parsed[TASK_MEMORY_LIMIT_CONFIG]
            ),
            topic_tracking_enable=parsed["topic.tracking.enable"],
            topic_tracking_allow_reset=parsed["topic.tracking.allow.reset"],
            metric_namings=tuple(
                dict.fromkeys(MetricNaming(n.lower()) for n in parsed[METRICS_NAMES_CONFIG])
            ),
            transactional_id=parsed["transactional.id"],
            task_control_port=parsed["task.control.port"],
            plugin_path=tuple(parsed["plugin.path"]),
            table_formats=tuple(f.strip().lower() for f in parsed["table.formats"] if f.strip()),
            jvm_class_archive=parsed[JVM_CLASS_ARCHIVE_CONFIG],
            iceberg_warehouse=Path(parsed["iceberg.warehouse"] or data_dir / "iceberg").resolve(),
            connect_protocol=ConnectProtocolMode(parsed["connect.protocol"].lower()),
            session_timeout_ms=parsed["session.timeout.ms"],
            heartbeat_interval_ms=parsed["heartbeat.interval.ms"],
            rebalance_timeout_ms=parsed["rebalance.timeout.ms"],
            worker_sync_timeout_ms=parsed["worker.sync.timeout.ms"],
            worker_unsync_backoff_ms=parsed["worker.unsync.backoff.ms"],
            scheduled_rebalance_max_delay_ms=parsed["scheduled.rebalance.max.delay.ms"],
            connector_call_timeout_ms=parsed["connector.call.timeout.ms"],
            client_override_policy=override_policy(
                parsed[OVERRIDE_POLICY_CONFIG], parsed[ALLOWLIST_CONFIG], unsafe
            ),
            warnings=tuple(warnings),
        )

    def advertised_url(self, port: int) -> str:
        """The URL other workers of the group reach this one at (Kafka's `advertisedUrl`)."""
        scheme, _, address = self.listeners.split(",")[0].strip().partition("://")
        listener_host = address.rsplit(":", 1)[0].strip("[]")
        host = self.advertised_host
        if host is None and listener_host not in ("", "0.0.0.0", "::"):
            host = listener_host
        advertised_port = self.advertised_port if self.advertised_port is not None else port
        host = host or socket.gethostname()
        return f"{self.advertised_listener or scheme or 'http'}://{host}:{advertised_port}/"

    def advertised_worker_id(self, port: int) -> str:
        host = self.advertised_host or socket.gethostname()
        return f"{host}:{self.advertised_port if self.advertised_port is not None else port}"


def _joined_or_none(listeners: list[str] | None) -> str | None:
    return None if listeners is None else ",".join(listeners)


def _check_inter_worker_keys(parsed: Mapping[str, Any]) -> None:
    """Kafka's own cross-checks: keys can be generated, and the worker verifies what it signs with."""
    key_size_bytes(parsed[INTER_WORKER_KEY_GENERATION_ALGORITHM], parsed[INTER_WORKER_KEY_SIZE])
    signature_algorithm = parsed[INTER_WORKER_SIGNATURE_ALGORITHM]
    if signature_algorithm not in parsed[INTER_WORKER_VERIFICATION_ALGORITHMS]:
        raise ConfigError(
            INTER_WORKER_SIGNATURE_ALGORITHM,
            signature_algorithm,
            f"Signature algorithm must be present in {INTER_WORKER_VERIFICATION_ALGORITHMS} list",
        )


def _replication(parsed: Mapping[str, Any], store: str, standalone: bool) -> int:
    """An internal topic's replication factor: as set, else Kafka Connect's 3 for a worker group and the
    broker's default for a standalone worker (which Kafka Connect gives no internal topics at all)."""
    value = parsed[f"{store}.storage.replication.factor"]
    if value is not None:
        return int(value)
    return -1 if standalone else 3


def _cluster_warnings(spark_master: str | None, log_url: str) -> list[str]:
    """Executors of a cluster master may run on other machines, where an embedded log is out of reach."""
    if not spark_master or spark_master.startswith("local") or not log_url.startswith("embedded:"):
        return []
    return [
        f"spark.master={spark_master} may run tasks on other machines, which cannot open the embedded log "
        f"at {log_url.removeprefix('embedded:')}: give the worker bootstrap.servers to run on Kafka"
    ]


def _warnings(values: Mapping[str, Any]) -> list[str]:
    """One warning per key that is ignored on purpose (with its reason) or that Conveyor does not know."""
    warnings: list[str] = []
    for key in values:
        if key in IGNORED_KEYS:
            warnings.append(f"Ignoring worker property '{key}': {IGNORED_KEYS[key]}")
        elif key not in WORKER_CONFIG_DEF.names() and not key.startswith(PASS_THROUGH_PREFIXES):
            warnings.append(f"Ignoring worker property '{key}': Conveyor does not support it")
    return warnings
