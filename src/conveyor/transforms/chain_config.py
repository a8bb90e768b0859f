"""The config keys a transformation chain adds to a connector's config, for validation.

As Kafka's ``ConnectorConfig.enrich``: per transformation alias ``transforms.<a>.type``, ``.negate``,
``.predicate`` and the transformation's own keys, in group ``Transforms: <a>``; per predicate alias
``predicates.<p>.type`` and the predicate's keys, in group ``Predicates: <p>``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from conveyor.api import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    LambdaValidator,
    Predicate,
    Transformation,
    Width,
)
from conveyor.transforms.chain import (
    NEGATE_CONFIG,
    PLUGIN_VERSION_CONFIG,
    PREDICATE_CONFIG,
    PREDICATE_KIND,
    PREDICATES_CONFIG,
    TRANSFORMATION_KIND,
    TRANSFORMS_CONFIG,
    TYPE_CONFIG,
    PluginResolver,
    parse_aliases,
    resolve_plugin_class,
    versioned,
)
from conveyor.transforms.registry import resolve_builtin_plugin


def _class_validator(resolve: PluginResolver, kind: str, base: type) -> LambdaValidator:
    def ensure_valid(name: str, value: Any) -> None:
        if value is None:
            raise ConfigError(name, value, f"Missing class for {kind}")
        resolve_plugin_class(resolve, kind, name, value, base)

    return LambdaValidator(ensure_valid, f"A {base.__name__} class")


def _predicate_alias_validator(declared: list[str]) -> LambdaValidator:
    def ensure_valid(name: str, value: Any) -> None:
        if value is not None and value not in declared:
            raise ConfigError(
                name, value, f"The predicate alias '{value}' is not listed in '{PREDICATES_CONFIG}'"
            )

    return LambdaValidator(ensure_valid, f"one of the aliases listed in '{PREDICATES_CONFIG}'")


def _plugin_keys(
    definition: ConfigDef, plugin_class: type | None, prefix: str, group: str, first_order: int
) -> None:
    if plugin_class is None:
        return
    try:
        plugin_keys = plugin_class().config().config_keys().values()
    except Exception:
        return
    for order, key in enumerate(plugin_keys, start=first_order):
        if key.name in (TYPE_CONFIG, PREDICATE_CONFIG, NEGATE_CONFIG, PLUGIN_VERSION_CONFIG):
            continue
        definition.define_key(
            dataclasses.replace(
                key,
                name=prefix + key.name,
                group=group,
                order_in_group=order,
                display_name=key.display_name if key.display_name != key.name else prefix + key.name,
                dependents=tuple(prefix + dependent for dependent in key.dependents),
            )
        )


def _define_type(
    definition: ConfigDef,
    props: Mapping[str, Any],
    resolve: PluginResolver,
    kind: str,
    base: type,
    alias: str,
    prefix: str,
    group: str,
    first_free_order: int,
) -> type | None:
    """Define ``<prefix>type``, first in ``group``, and ``<prefix>plugin.version``; return the class
    ``props`` names there, if it resolves."""
    key = prefix + TYPE_CONFIG
    definition.define(
        key,
        ConfigType.STRING,
        validator=_class_validator(resolve, kind, base),
        importance=Importance.HIGH,
        documentation=f"Class for the '{alias}' {kind}.",
        group=group,
        order_in_group=0,
        width=Width.LONG,
        display_name=f"{kind.capitalize()} type for {alias}",
    )
    definition.define(
        prefix + PLUGIN_VERSION_CONFIG,
        ConfigType.STRING,
        default=None,
        importance=Importance.LOW,
        documentation=f"Version of the '{alias}' {kind} (a version or a range such as [1.0,2.0)); the "
        "highest installed version it accepts is used, and the highest installed one without a value.",
        group=group,
        order_in_group=first_free_order,
        width=Width.SHORT,
        display_name=f"{kind.capitalize()} version for {alias}",
    )
    try:
        return resolve_plugin_class(
            versioned(resolve, props.get(prefix + PLUGIN_VERSION_CONFIG)), kind, key, props.get(key), base
        )
    except ConfigError:
        return None


def transformation_config_def(props: Mapping[str, Any], resolve: PluginResolver | None = None) -> ConfigDef:
    """The per-alias keys that the ``transforms`` and ``predicates`` listed in ``props`` contribute."""
    resolver = resolve if resolve is not None else resolve_builtin_plugin
    definition = ConfigDef()
    declared_predicates = parse_aliases(props, PREDICATES_CONFIG)
    for alias in parse_aliases(props, TRANSFORMS_CONFIG):
        prefix = f"{TRANSFORMS_CONFIG}.{alias}."
        group = f"Transforms: {alias}"
        transformation_class = _define_type(
            definition, props, resolver, TRANSFORMATION_KIND, Transformation, alias, prefix, group, 3
        )
        definition.define(
            prefix + PREDICATE_CONFIG,
            ConfigType.STRING,
            default=None,
            validator=_predicate_alias_validator(declared_predicates),
            importance=Importance.MEDIUM,
            documentation="The alias of a predicate used to determine whether to apply this transformation.",
            group=group,
            order_in_group=1,
            width=Width.LONG,
            display_name=f"Predicate for {alias}",
        )
        definition.define(
            prefix + NEGATE_CONFIG,
            ConfigType.BOOLEAN,
            default=False,
            importance=Importance.MEDIUM,
            documentation="Whether the configured predicate should be negated.",
            group=group,
            order_in_group=2,
            width=Width.SHORT,
            display_name=f"Negate predicate for {alias}",
        )
        _plugin_keys(definition, transformation_class, prefix, group, first_order=4)
    for alias in declared_predicates:
        prefix = f"{PREDICATES_CONFIG}.{alias}."
        group = f"Predicates: {alias}"
        predicate_class = _define_type(
            definition, props, resolver, PREDICATE_KIND, Predicate, alias, prefix, group, 1
        )
        _plugin_keys(definition, predicate_class, prefix, group, first_order=2)
    return definition
