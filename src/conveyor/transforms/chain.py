"""Transformation chains configured as Kafka Connect does it.

``transforms=a,b`` lists aliases in order; ``transforms.a.type`` names the class, ``transforms.a.*`` its
settings, ``transforms.a.predicate`` an alias from ``predicates`` (typed by ``predicates.<alias>.type``) and
``transforms.a.negate`` inverts that predicate. A stage whose predicate does not hold passes records on.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conveyor.api import ConfigError, Predicate, Transformation
from conveyor.data import ConnectRecord
from conveyor.transforms.registry import resolve_builtin_plugin

TRANSFORMS_CONFIG = "transforms"
PREDICATES_CONFIG = "predicates"
TYPE_CONFIG = "type"
PREDICATE_CONFIG = "predicate"
NEGATE_CONFIG = "negate"
PLUGIN_VERSION_CONFIG = "plugin.version"
TRANSFORMATION_KIND = "transformation"
PREDICATE_KIND = "predicate"


PluginResolver = Callable[..., type]
"""``resolve(kind, class_name[, version])``: the class a config names, in the version a
``*.plugin.version`` value asks for when given; ``kind`` is "transformation" or "predicate"."""


def versioned(resolve: PluginResolver, version: Any) -> PluginResolver:
    """``resolve`` asking for ``version`` (a ``<prefix>plugin.version`` value), or as it is without one."""
    if version is None or not str(version).strip():
        return resolve
    return functools.partial(_resolve_version, resolve, str(version).strip())


def _resolve_version(resolve: PluginResolver, version: str, kind: str, class_name: str) -> type:
    return resolve(kind, class_name, version)


def parse_aliases(props: Mapping[str, Any], key: str) -> list[str]:
    """The aliases listed under ``key`` (comma separated, trimmed); a repeated alias is an error."""
    raw = props.get(key)
    if raw is None:
        return []
    items = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    aliases = [str(item).strip() for item in items if str(item).strip()]
    if len(set(aliases)) != len(aliases):
        raise ConfigError(key, raw, "Duplicate alias provided.")
    return aliases


def prefixed_settings(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The keys of ``props`` that start with ``prefix``, with the prefix removed."""
    return {key[len(prefix) :]: value for key, value in props.items() if key.startswith(prefix)}


def resolve_plugin_class(resolve: PluginResolver, kind: str, key: str, class_name: Any, base: type) -> type:
    """Resolve the class named at config ``key``, failing with a ConfigError that names the key."""
    if isinstance(class_name, type):
        found = class_name
    elif isinstance(class_name, str) and class_name.strip():
        try:
            found = resolve(kind, class_name.strip())
        except Exception as error:
            raise ConfigError(key, class_name, f"Class {class_name} could not be found: {error}") from error
    else:
        raise ConfigError(key, class_name, f"Class name of a {kind} must be a non-empty string")
    if not (isinstance(found, type) and issubclass(found, base)):
        raise ConfigError(key, class_name, f"Not a {base.__name__}")
    return found


def _parse_negate(key: str, raw: Any) -> bool:
    if raw is None or isinstance(raw, bool):
        return bool(raw)
    text = str(raw).strip().lower()
    if text not in ("true", "false"):
        raise ConfigError(key, raw, "Expected value to be either true or false")
    return text == "true"


def _configured(instance: Any, settings: Mapping[str, Any], key_prefix: str) -> None:
    try:
        instance.configure(settings)
    except ConfigError as error:
        named = f"{key_prefix}{error.name}" if error.name else key_prefix.rstrip(".")
        wrapped = ConfigError(f"Invalid configuration for {named} ({type(instance).__name__}): {error}")
        wrapped.name, wrapped.value = named, error.value
        raise wrapped from error


@dataclass
class TransformationStage:
    """One transformation of a chain, applied only when its (possibly negated) predicate holds."""

    alias: str
    transformation: Transformation[ConnectRecord]
    predicate: Predicate[ConnectRecord] | None = None
    negate: bool = False
    predicate_alias: str | None = None

    def applies_to(self, record: ConnectRecord) -> bool:
        """Whether the transformation should run on ``record``."""
        return self.predicate is None or self.predicate.test(record) != self.negate

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return self.transformation.apply(record) if self.applies_to(record) else record

    def apply_batch(self, records: Sequence[ConnectRecord]) -> list[ConnectRecord]:
        """Apply to many records in order; runs of records the predicate selects go through in one batch."""
        if self.predicate is None:
            return self.transformation.apply_batch(records)
        result: list[ConnectRecord] = []
        selected: list[ConnectRecord] = []
        for record in records:
            if self.applies_to(record):
                selected.append(record)
                continue
            if selected:
                result.extend(self.transformation.apply_batch(selected))
                selected = []
            result.append(record)
        if selected:
            result.extend(self.transformation.apply_batch(selected))
        return result

    def close(self) -> None:
        try:
            self.transformation.close()
        finally:
            if self.predicate is not None:
                self.predicate.close()


class TransformationChain:
    """The ordered stages a record goes through; a stage returning None drops the record."""

    def __init__(self, stages: Sequence[TransformationStage] = ()) -> None:
        self.stages: tuple[TransformationStage, ...] = tuple(stages)

    @classmethod
    def from_connector_config(
        cls, props: Mapping[str, Any], resolve: PluginResolver | None = None
    ) -> TransformationChain:
        """Build and configure every stage listed in ``transforms``; errors name the alias and key."""
        resolver = resolve if resolve is not None else resolve_builtin_plugin
        declared_predicates = parse_aliases(props, PREDICATES_CONFIG)
        stages: list[TransformationStage] = []
        try:
            for alias in parse_aliases(props, TRANSFORMS_CONFIG):
                stages.append(_build_stage(props, alias, declared_predicates, resolver))
        except BaseException:
            for stage in stages:
                with contextlib.suppress(Exception):
                    stage.close()
            raise
        return cls(stages)

    def __len__(self) -> int:
        return len(self.stages)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        current: ConnectRecord | None = record
        for stage in self.stages:
            if current is None:
                return None
            current = stage.apply(current)
        return current

    def apply_batch(self, records: Sequence[ConnectRecord]) -> list[ConnectRecord]:
        """Apply the chain to many records, stage by stage, keeping order and leaving out dropped ones."""
        current = list(records)
        for stage in self.stages:
            if not current:
                break
            current = stage.apply_batch(current)
        return current

    def close(self) -> None:
        """Close every stage; the first failure is raised after all were tried."""
        failure: BaseException | None = None
        for stage in self.stages:
            try:
                stage.close()
            except Exception as error:
                failure = failure or error
        if failure is not None:
            raise failure


def _plugin_class_and_settings(
    props: Mapping[str, Any], prefix: str, kind: str, base: type, resolve: PluginResolver
) -> tuple[type, dict[str, Any]]:
    """The class named at ``<prefix>type`` (in the version ``<prefix>version`` asks for) and the plugin's own
    settings, the keys under ``prefix`` without the version."""
    type_key = prefix + TYPE_CONFIG
    if type_key not in props:
        raise ConfigError.missing(type_key)
    settings = prefixed_settings(props, prefix)
    plugin_class = resolve_plugin_class(
        versioned(resolve, settings.pop(PLUGIN_VERSION_CONFIG, None)), kind, type_key, props[type_key], base
    )
    return plugin_class, settings


def _build_stage(
    props: Mapping[str, Any], alias: str, declared_predicates: Sequence[str], resolve: PluginResolver
) -> TransformationStage:
    prefix = f"{TRANSFORMS_CONFIG}.{alias}."
    transformation_class, settings = _plugin_class_and_settings(
        props, prefix, TRANSFORMATION_KIND, Transformation, resolve
    )
    predicate_alias = settings.pop(PREDICATE_CONFIG, None)
    negate = _parse_negate(prefix + NEGATE_CONFIG, settings.pop(NEGATE_CONFIG, None))
    predicate = None
    if predicate_alias is not None and str(predicate_alias).strip():
        predicate = _build_predicate(
            props, prefix, str(predicate_alias).strip(), declared_predicates, resolve
        )
    transformation = transformation_class()
    try:
        _configured(transformation, settings, prefix)
    except BaseException:
        if predicate is not None:
            predicate.close()
        raise
    return TransformationStage(
        alias, transformation, predicate, negate, str(predicate_alias).strip() if predicate else None
    )


def _build_predicate(
    props: Mapping[str, Any],
    transform_prefix: str,
    alias: str,
    declared: Sequence[str],
    resolve: PluginResolver,
) -> Predicate[ConnectRecord]:
    if alias not in declared:
        raise ConfigError(
            transform_prefix + PREDICATE_CONFIG,
            alias,
            f"The predicate alias '{alias}' is not listed in '{PREDICATES_CONFIG}'",
        )
    prefix = f"{PREDICATES_CONFIG}.{alias}."
    predicate_class, settings = _plugin_class_and_settings(props, prefix, PREDICATE_KIND, Predicate, resolve)
    predicate = predicate_class()
    _configured(predicate, settings, prefix)
    return predicate  # type: ignore[no-any-return]
