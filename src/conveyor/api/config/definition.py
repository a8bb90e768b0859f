"""``ConfigDef``: the typed, documented, validated set of keys a plugin or the runtime accepts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.api.config.infos import config_infos
from conveyor.api.config.parsing import parse_type
from conveyor.api.config.types import NO_DEFAULT, ConfigType, Importance, Password, Width
from conveyor.api.config.validators import Recommender, Validator
from conveyor.api.config.values import ConfigValue
from conveyor.api.errors import ConfigError


@dataclass(frozen=True)
class ConfigKey:
    """One defined key (Kafka's ``ConfigDef.ConfigKey``); ``default`` is already parsed, or NO_DEFAULT."""

    name: str
    type: ConfigType
    default: Any = NO_DEFAULT
    validator: Validator | None = None
    importance: Importance = Importance.MEDIUM
    documentation: str = ""
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str | None = None
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = field(default=None, compare=False)

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


class ConfigDef:
    """A set of config keys with types, defaults, validators and documentation (Kafka's ``ConfigDef``).

    >>> from conveyor.api.config import ConfigDef, ConfigType, Importance, Range
    >>> definition = (ConfigDef()
    ...     .define("file", ConfigType.STRING, importance=Importance.HIGH, documentation="Input file.")
    ...     .define("batch.size", ConfigType.INT, default=2000, validator=Range.at_least(1)))
    >>> definition.parse({"file": "in.txt", "batch.size": "10"})
    {'file': 'in.txt', 'batch.size': 10}
    """

    def __init__(self, base: ConfigDef | None = None) -> None:
        self._keys: dict[str, ConfigKey] = dict(base._keys) if base else {}
        self._groups: list[str] = list(base._groups) if base else []

    def define(
        self,
        name: str,
        type: ConfigType,
        *,
        default: Any = NO_DEFAULT,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        group: str | None = None,
        order_in_group: int = -1,
        width: Width = Width.NONE,
        display_name: str | None = None,
        dependents: Iterable[str] = (),
        recommender: Recommender | None = None,
    ) -> ConfigDef:
        """Add a key; its default is parsed and validated now, so a bad default fails at definition.

        Everything after ``name`` and ``type`` is given by keyword, as the key's documentation reads.
        """
        if name in self._keys:
            raise ConfigError(f"Configuration {name} is defined twice.")
        if default is not NO_DEFAULT:
            default = parse_type(name, default, type)
            if validator is not None:
                validator.ensure_valid(name, default)
        return self.define_key(
            ConfigKey(
                name,
                type,
                default,
                validator,
                importance,
                documentation,
                group,
                order_in_group,
                width,
                display_name if display_name is not None else name,
                tuple(dependents),
                recommender,
            )
        )

    def define_key(self, key: ConfigKey) -> ConfigDef:
        """Add (or replace) an already built key."""
        if key.group is not None and key.group not in self._groups:
            self._groups.append(key.group)
        self._keys[key.name] = key
        return self

    def merge(self, other: ConfigDef) -> ConfigDef:
        """A new definition holding this one's keys and ``other``'s; ``other`` wins on a shared name."""
        merged = ConfigDef(self)
        for key in other._keys.values():
            merged.define_key(key)
        return merged

    def names(self) -> frozenset[str]:
        return frozenset(self._keys)

    def config_keys(self) -> Mapping[str, ConfigKey]:
        """The keys in definition order."""
        return dict(self._keys)

    def groups(self) -> list[str]:
        """Group names in the order they were first used."""
        return list(self._groups)

    def default_values(self) -> dict[str, Any]:
        return {key.name: key.default for key in self._keys.values() if key.has_default}

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Every defined key's typed value; raises :class:`ConfigError` on the first missing or bad key."""
        self._ensure_dependents_defined()
        parsed: dict[str, Any] = {}
        for key in self._keys.values():
            if key.name in props:
                value = parse_type(key.name, props[key.name], key.type)
            elif key.has_default:
                value = key.default
            else:
                raise ConfigError.missing(key.name)
            if key.validator is not None:
                _run_validator(key, value)
            parsed[key.name] = value
        return parsed

    def validate(self, props: Mapping[str, Any]) -> list[ConfigValue]:
        """Every key's value, recommendations, visibility and all its errors; never raises on bad input.

        Unknown names listed as dependents are reported as errors of their own, as Kafka does.
        """
        values = {name: ConfigValue(name) for name in self._keys}
        for undefined in self._undefined_dependents():
            error = f"{undefined} is referred in the dependents, but not defined."
            values[undefined] = ConfigValue(undefined, errors=[error], visible=False)
        parsed: dict[str, Any] = {}
        roots = self._keys_without_parent()
        visited: set[str] = set()
        for name in roots:
            self._parse_for_validate(name, props, parsed, values, visited)
        visited.clear()
        for name in roots:
            self._recommend(name, parsed, values, visited)
        return list(values.values())

    def config_infos(self, name: str, config_values: Iterable[ConfigValue]) -> dict[str, Any]:
        """The ``PUT /connector-plugins/{plugin}/config/validate`` response body for these values."""
        return config_infos(name, self._keys, config_values, self._groups)

    def _parse_for_validate(
        self,
        name: str,
        props: Mapping[str, Any],
        parsed: dict[str, Any],
        values: dict[str, ConfigValue],
        visited: set[str],
    ) -> None:
        key = self._first_visit(name, visited)
        if key is None:
            return
        result = values[name]
        value: Any = None
        if name in props:
            try:
                value = parse_type(name, props[name], key.type)
            except ConfigError as error:
                result.add_error(_scrub(key, str(error), props[name]))
        elif key.has_default:
            value = key.default
        else:
            result.add_error(str(ConfigError.missing(name)))
        if key.validator is not None:
            try:
                _run_validator(key, value)
            except ConfigError as error:
                result.add_error(str(error))
        result.value = value
        parsed[name] = value
        for dependent in key.dependents:
            self._parse_for_validate(dependent, props, parsed, values, visited)

    def _recommend(
        self, name: str, parsed: Mapping[str, Any], values: dict[str, ConfigValue], visited: set[str]
    ) -> None:
        key = self._first_visit(name, visited)
        if key is None:
            return
        result = values[name]
        if key.recommender is not None:
            try:
                recommended = key.recommender.valid_values(name, parsed)
                if result.recommended_values:
                    recommended = [v for v in recommended if v in result.recommended_values]
                result.recommended_values = recommended
                result.visible = key.recommender.visible(name, parsed)
            except ConfigError as error:
                result.add_error(str(error))
        for dependent in key.dependents:
            self._recommend(dependent, parsed, values, visited)

    def _first_visit(self, name: str, visited: set[str]) -> ConfigKey | None:
        """The key of ``name`` the first time a walk over dependents reaches it, else None."""
        key = self._keys.get(name)
        if key is None or name in visited:
            return None
        visited.add(name)
        return key

    def _keys_without_parent(self) -> list[str]:
        children = {dependent for key in self._keys.values() for dependent in key.dependents}
        return [name for name in self._keys if name not in children]

    def _undefined_dependents(self) -> list[str]:
        return sorted(
            {dependent for key in self._keys.values() for dependent in key.dependents} - self._keys.keys()
        )

    def _ensure_dependents_defined(self) -> None:
        undefined = self._undefined_dependents()
        if undefined:
            names = ",".join(undefined)
            message = f"Some configurations in are referred in the dependents, but not defined: {names}"
            raise ConfigError(message)


def _run_validator(key: ConfigKey, value: Any) -> None:
    """Run the key's validator, keeping a password's secret out of whatever message it raises."""
    assert key.validator is not None
    try:
        key.validator.ensure_valid(key.name, value)
    except ConfigError as error:
        if key.type is not ConfigType.PASSWORD:
            raise
        scrubbed = ConfigError(_scrub(key, str(error), value))
        scrubbed.name, scrubbed.value = key.name, value
        raise scrubbed from None


def _scrub(key: ConfigKey, message: str, raw: Any) -> str:
    if key.type is not ConfigType.PASSWORD or raw is None:
        return message
    secret = raw.value if isinstance(raw, Password) else str(raw).strip()
    return message.replace(secret, str(Password(secret))) if secret else message
