"""Connector config validation: the ConfigInfos of `PUT /connector-plugins/{p}/config/validate`.

The connector's own definition is merged with Kafka Connect's common connector keys (source or sink),
the keys each configured transform and predicate adds, KIP-618's preflight checks for exactly-once
source connectors, and the worker's client config override policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import (
    ConfigDef,
    ConfigError,
    ConfigType,
    ConfigValue,
    Connector,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SinkConnector,
    SourceConnector,
    TransactionBoundary,
)
from conveyor.api.config import HIDDEN
from conveyor.api.config.infos import config_key_info
from conveyor.errors import BadRequestError, NotFoundError
from conveyor.plugins import (
    InvalidPluginError,
    InvalidPluginVersionError,
    PluginKind,
    PluginNotFoundError,
    PluginVersionNotFoundError,
    load_chain_plugin,
    load_plugin_class,
)
from conveyor.settings.client_overrides import (
    POLICIES,
    ClientType,
    OverridePolicy,
    client_overrides,
    clients_used,
    log_url_refusals,
    override_violations,
)
from conveyor.settings.connector_config import (
    CONNECTOR_CLASS_CONFIG,
    ErrorPolicy,
    SinkTopics,
    SourceTransactionSettings,
    connector_config_def,
    sink_connector_config_def,
    source_connector_config_def,
)
from conveyor.settings.connector_config.definitions import (
    CONNECTOR_VERSION_CONFIG,
    DLQ_TOPIC_NAME_CONFIG,
    EXACTLY_ONCE_SUPPORT_CONFIG,
    PLUGIN_VERSION_SUFFIX,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
)
from conveyor.transforms import transformation_config_def

EOS_WORKER_DISABLED = "This worker does not have exactly-once source support enabled."
EOS_NULL = (
    "The connector does not implement the API required for preflight validation of exactly-once "
    "source support. Please consult the documentation for the connector to determine whether it "
    "supports exactly-once semantics, and then consider reconfiguring the connector to use the value "
    '"requested" for this property (which will disable this preflight check and allow the connector '
    "to be created)."
)
EOS_UNSUPPORTED = "The connector does not support exactly-once semantics with the provided configuration."
BOUNDARIES_NULL = (
    "This connector has returned a null value from its canDefineTransactionBoundaries method, which is "
    "not permitted. The connector will be treated as if it cannot define its own transaction boundaries, "
    "and cannot be configured with 'transaction.boundary' set to 'connector'."
)
UNEXPECTED_VALIDATION_ERROR = "An unexpected error occurred during validation: "
BOUNDARIES_UNSUPPORTED = (
    "The connector does not support connector-defined transaction boundaries with the given "
    "configuration. Please reconfigure it to use a different transaction boundary definition."
)


def connector_class(config: Mapping[str, str], known: ConfigDef | None = None) -> type[Connector]:
    """The connector class a config names; a 400 naming the closest known plugins if there is none.

    A config without a class is echoed in the 400 as `masked_config` shows it under ``known`` (by
    default the keys every connector has).
    """
    name = config.get(CONNECTOR_CLASS_CONFIG)
    if not name:
        shown = masked_config(config, known or connector_config_def())
        raise BadRequestError(f"Connector config {shown} contains no connector type")
    try:
        klass = _pinned_or_highest(name, config.get(CONNECTOR_VERSION_CONFIG))
    except (PluginNotFoundError, InvalidPluginError) as exc:
        raise BadRequestError(f"{CONNECTOR_CLASS_CONFIG}: {exc}") from exc
    if not (isinstance(klass, type) and issubclass(klass, (SourceConnector, SinkConnector))):
        raise BadRequestError(f"{CONNECTOR_CLASS_CONFIG}: {name} is not a source or sink connector class")
    return klass


def _pinned_or_highest(name: str, version: str | None) -> type:
    """The connector class in the version ``version`` pins, or its highest when that version is not
    installed (validation reports that on ``connector.plugin.version``)."""
    try:
        return load_plugin_class(name, version=version or None)
    except (PluginVersionNotFoundError, InvalidPluginVersionError):
        return load_plugin_class(name)


def masked_config(config: Mapping[str, str], definition: ConfigDef) -> dict[str, str]:
    """The config as a message may echo it: a value shows only if ``definition`` defines its key and
    the key's type is not PASSWORD; every other value is ``[hidden]``, as Kafka hides passwords."""
    keys = definition.config_keys()
    return {
        name: value if name in keys and keys[name].type is not ConfigType.PASSWORD else HIDDEN
        for name, value in config.items()
    }


def connector_definition(klass: type[Connector]) -> ConfigDef:
    """Every key a connector class accepts: the source or sink framework keys and its own."""
    framework = (
        source_connector_config_def() if issubclass(klass, SourceConnector) else sink_connector_config_def()
    )
    return framework.merge(klass().config())


def validate_connector_config(
    config: Mapping[str, str],
    exactly_once_enabled: bool,
    worker_group_id: str | None = None,
    override_policy: OverridePolicy = POLICIES["All"],
) -> dict[str, Any]:
    """Validate a connector config as Kafka Connect's `AbstractHerder.validateConnectorConfig` does.

    `worker_group_id` is a distributed worker's `group.id`: a sink connector whose consumer group would
    be the same group is refused, as Kafka's `DistributedHerder.validateSinkConnectorConfig` does. The
    client overrides of the clients its tasks use are checked against the worker's `override_policy`.
    """
    klass = connector_class(config)
    connector = klass()
    is_source = issubclass(klass, SourceConnector)
    framework = source_connector_config_def() if is_source else sink_connector_config_def()
    try:
        framework = framework.merge(
            transformation_config_def(_with_unique_aliases(config), load_chain_plugin)
        )
    except Exception as exc:
        framework_values = framework.validate(config)
        _add_error(framework_values, "transforms", str(exc))
        return _infos(klass, framework, framework_values, [], connector.config())
    framework_values = framework.validate(config)
    if is_source:
        assert isinstance(connector, SourceConnector)
        _preflight_exactly_once(connector, config, framework_values, exactly_once_enabled)
    else:
        _check_sink_topics(config, framework_values)
        _check_sink_group(config, framework_values, worker_group_id)
    _check_plugin_versions(config, framework_values)
    clients = clients_used(config, is_source, exactly_once_enabled)
    _check_client_overrides(config, framework_values, override_policy, clients)
    connector_values = connector.validate(config)
    _check_log_urls(config, [*framework_values, *connector_values], framework_values, override_policy)
    return _infos(klass, framework, framework_values, connector_values, connector.config())


def _with_unique_aliases(config: Mapping[str, str]) -> dict[str, str]:
    """The config with each transform and predicate alias listed once, as Kafka's ``ConnectorConfig.enrich``
    reads them: the duplicate is reported on ``transforms`` (``predicates``) by their own validator."""
    unique = dict(config)
    for key in ("transforms", "predicates"):
        aliases = [alias.strip() for alias in config.get(key, "").split(",") if alias.strip()]
        if aliases:
            unique[key] = ",".join(dict.fromkeys(aliases))
    return unique


def _infos(
    klass: type[Connector],
    framework: ConfigDef,
    framework_values: list[ConfigValue],
    connector_values: list[ConfigValue],
    connector_def: ConfigDef,
) -> dict[str, Any]:
    merged = framework.merge(connector_def)
    by_name = {value.name: value for value in framework_values}
    for value in connector_values:
        by_name[value.name] = value
    return merged.config_infos(f"{klass.__module__}.{klass.__qualname__}", list(by_name.values()))


def _add_error(values: list[ConfigValue], name: str, message: str) -> None:
    for value in values:
        if value.name == name:
            value.errors.append(message)
            return


_VERSIONED_CLASS_KEYS: dict[str, tuple[str, PluginKind | None]] = {
    CONNECTOR_VERSION_CONFIG: (CONNECTOR_CLASS_CONFIG, None),
    "key.converter" + PLUGIN_VERSION_SUFFIX: ("key.converter", PluginKind.CONVERTER),
    "value.converter" + PLUGIN_VERSION_SUFFIX: ("value.converter", PluginKind.CONVERTER),
    "header.converter" + PLUGIN_VERSION_SUFFIX: ("header.converter", PluginKind.HEADER_CONVERTER),
}


def _check_plugin_versions(config: Mapping[str, str], values: list[ConfigValue]) -> None:
    """Each ``*.plugin.version`` must name an installed version of its plugin; the error names the key and
    lists the versions installed (KIP-891)."""
    for key, class_name, kind in _versioned_plugins(config):
        version = config.get(key)
        if not class_name or not version or not version.strip():
            continue
        try:
            load_plugin_class(class_name, kind, version)
        except PluginVersionNotFoundError as exc:
            _add_error(
                values,
                key,
                f"Plugin {class_name} is not installed in version {version.strip()}; the versions installed "
                f"are: {', '.join(exc.versions)}",
            )
        except InvalidPluginVersionError as exc:
            _add_error(values, key, str(exc))
        except (PluginNotFoundError, InvalidPluginError):
            continue


def _versioned_plugins(config: Mapping[str, str]) -> list[tuple[str, str, PluginKind | None]]:
    """Each ``*.plugin.version`` key, the plugin class it pins a version of, and that plugin's kind."""
    found = [
        (key, config.get(class_key, ""), kind) for key, (class_key, kind) in _VERSIONED_CLASS_KEYS.items()
    ]
    for list_key, kind in (("transforms", PluginKind.TRANSFORMATION), ("predicates", PluginKind.PREDICATE)):
        for alias in dict.fromkeys(a.strip() for a in config.get(list_key, "").split(",") if a.strip()):
            prefix = f"{list_key}.{alias}"
            found.append((prefix + PLUGIN_VERSION_SUFFIX, config.get(f"{prefix}.type", ""), kind))
    return found


def _check_client_overrides(
    config: Mapping[str, str], values: list[ConfigValue], policy: OverridePolicy, clients: list[ClientType]
) -> None:
    """Each override of a client the tasks use, and each refused override of any client, is listed under
    its full key, with the refusal."""
    violations = override_violations(policy, config, clients)
    known = {value.name: value for value in values}
    for client in ClientType:
        for setting, raw in client_overrides(config, client).items():
            key = client.prefix + setting
            if client not in clients and key not in violations:
                continue
            value = known.get(key)
            if value is None:
                value = ConfigValue(key, raw)
                values.append(value)
            if key in violations:
                value.add_error(violations[key])


def _check_log_urls(
    config: Mapping[str, str],
    validated: list[ConfigValue],
    values: list[ConfigValue],
    policy: OverridePolicy,
) -> None:
    """A connector's own log URLs open Kafka clients with the settings of their query: those the worker
    refuses as overrides are refused here too, under the key (on its `validated` value, the connector's own
    winning, else a new one in `values`)."""
    known = {value.name: value for value in validated}
    for key, refusal in log_url_refusals(policy, config).items():
        value = known.get(key)
        if value is None:
            value = ConfigValue(key, config[key])
            values.append(value)
        value.add_error(refusal)


def _preflight_exactly_once(
    connector: SourceConnector, config: Mapping[str, str], values: list[ConfigValue], eos_enabled: bool
) -> None:
    try:
        settings = SourceTransactionSettings.parse(config)
    except ConfigError:
        return  # the bad value is reported under its own key by the definitions' validation
    if settings.exactly_once_required:
        if not eos_enabled:
            _add_error(values, EXACTLY_ONCE_SUPPORT_CONFIG, EOS_WORKER_DISABLED)
        try:
            support = connector.exactly_once_support(config)
            if support is None:
                _add_error(values, EXACTLY_ONCE_SUPPORT_CONFIG, EOS_NULL)
            elif support is ExactlyOnceSupport.UNSUPPORTED:
                _add_error(values, EXACTLY_ONCE_SUPPORT_CONFIG, EOS_UNSUPPORTED)
        except Exception as exc:
            _add_error(values, EXACTLY_ONCE_SUPPORT_CONFIG, f"{UNEXPECTED_VALIDATION_ERROR}{exc}")
    if settings.boundary is TransactionBoundary.CONNECTOR:
        try:
            boundaries = connector.can_define_transaction_boundaries(config)
            if boundaries is None:
                _add_error(values, TRANSACTION_BOUNDARY_CONFIG, BOUNDARIES_NULL)
            elif boundaries is not ConnectorTransactionBoundaries.SUPPORTED:
                _add_error(values, TRANSACTION_BOUNDARY_CONFIG, BOUNDARIES_UNSUPPORTED)
        except Exception as exc:
            _add_error(values, TRANSACTION_BOUNDARY_CONFIG, f"{UNEXPECTED_VALIDATION_ERROR}{exc}")


def _check_sink_topics(config: Mapping[str, str], values: list[ConfigValue]) -> None:
    """Exactly one of `topics` and `topics.regex`, and the DLQ topic outside both (SinkConnectorConfig)."""
    try:
        subscription = SinkTopics.parse(config)
        dlq = ErrorPolicy.from_connector_config(config).dlq_topic
    except ConfigError:
        return  # the bad value is reported under its own key by the definitions' validation
    if subscription.problem is not None:
        _add_error(values, TOPICS_CONFIG, subscription.problem)
        _add_error(values, TOPICS_REGEX_CONFIG, subscription.problem)
    if dlq and subscription.includes(dlq):
        _add_error(
            values,
            DLQ_TOPIC_NAME_CONFIG,
            f"The DLQ topic '{dlq}' may not be included in the list of topics ('topics=...') or match the "
            "regex ('topics.regex=...') to be consumed by this connector",
        )


def _check_sink_group(
    config: Mapping[str, str], values: list[ConfigValue], worker_group_id: str | None
) -> None:
    name = config.get("name", "")
    if worker_group_id is not None and f"connect-{name}" == worker_group_id:
        _add_error(
            values,
            "name",
            f"Consumer group for sink connector named {name} conflicts with Connect worker group "
            f"{worker_group_id}",
        )


def plugin_config_keys(plugin: str, version: str | None = None) -> list[dict[str, Any]]:
    """`GET /connector-plugins/{p}/config?version=`: the own keys of any kind of plugin as ConfigKeyInfo,
    in the highest installed version ``version`` accepts; a 400 listing the installed versions if none."""
    try:
        klass = load_plugin_class(plugin, version=version or None)
    except (PluginVersionNotFoundError, InvalidPluginVersionError) as exc:
        raise BadRequestError(str(exc)) from exc
    except (PluginNotFoundError, InvalidPluginError) as exc:
        raise NotFoundError(f"Unknown plugin {plugin}.") from exc
    definition: ConfigDef = klass().config()
    return [config_key_info(key) for key in definition.config_keys().values()]
