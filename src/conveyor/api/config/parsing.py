"""Coercion of raw config values (usually strings) to their declared type, and back to strings.

Follows Kafka's ``ConfigDef.parseType`` and ``ConfigDef.convertToString``: strings are trimmed,
booleans are ``true``/``false`` in any case, lists are comma separated, numbers keep Java's ranges.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conveyor.api.config.classes import class_name, resolve_class
from conveyor.api.config.types import ConfigType, Password
from conveyor.errors import ConfigError, NotFoundError

_INTEGER = re.compile(r"[+-]?\d+")
_COMMA_WITH_WHITESPACE = re.compile(r"\s*,\s*")
_INTEGER_BOUNDS = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1, "a 16-bit integer (short)"),
    ConfigType.INT: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    ConfigType.LONG: (-(2**63), 2**63 - 1, "a 64-bit integer (long)"),
}


def parse_type(name: str, value: Any, config_type: ConfigType) -> Any:
    """``value`` as ``config_type``; ``None`` stays ``None``. Raises :class:`ConfigError` naming ``name``."""
    if value is None:
        return None
    shown = Password(str(value)) if config_type is ConfigType.PASSWORD else value
    try:
        return _PARSERS[config_type](name, value.strip() if isinstance(value, str) else value)
    except ConfigError:
        raise
    except (ValueError, TypeError) as error:
        raise ConfigError(name, shown, f"Not a number of type {config_type.value}") from error


def to_config_string(value: Any, config_type: ConfigType | None) -> str | None:
    """The string form a parsed value takes in responses; passwords show ``[hidden]``."""
    if value is None:
        return None
    if config_type is ConfigType.LIST and isinstance(value, list | tuple):
        return ",".join(str(element) for element in value)
    if config_type is ConfigType.CLASS and isinstance(value, type):
        return class_name(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if config_type is ConfigType.PASSWORD and not isinstance(value, Password):
        return str(Password(str(value)))
    return str(value)


def _parse_boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ConfigError(name, value, "Expected value to be either true or false")


def _parse_string(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ConfigError(name, value, f"Expected value to be a string, but it was a {type(value).__name__}")


def _parse_password(name: str, value: Any) -> Password:
    if isinstance(value, Password):
        return value
    if isinstance(value, str):
        return Password(value)
    raise ConfigError(
        name, Password(str(value)), f"Expected value to be a string, but it was a {type(value).__name__}"
    )


def _integer_parser(config_type: ConfigType) -> Callable[[str, Any], int]:
    low, high, description = _INTEGER_BOUNDS[config_type]

    def parse(name: str, value: Any) -> int:
        if isinstance(value, str):
            if not _INTEGER.fullmatch(value):
                raise ValueError(value)
            number = int(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            raise ConfigError(
                name, value, f"Expected value to be {description}, but it was a {type(value).__name__}"
            )
        if not low <= number <= high:
            raise ValueError(value)
        return number

    return parse


def _parse_double(name: str, value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return float(value)
    raise ConfigError(name, value, f"Expected value to be a double, but it was a {type(value).__name__}")


def _parse_list(name: str, value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str):
        return [] if not value else _COMMA_WITH_WHITESPACE.split(value)
    raise ConfigError(name, value, "Expected a comma separated list.")


def _parse_class(name: str, value: Any) -> type:
    if isinstance(value, type):
        return value
    if isinstance(value, str):
        try:
            return resolve_class(value)
        except NotFoundError as error:
            why = "" if str(error) == value else f" {error}"
            raise ConfigError(name, value, f"Class {value} could not be found.{why}") from error
    raise ConfigError(name, value, "Expected a Class instance or class name.")


_PARSERS: dict[ConfigType, Callable[[str, Any], Any]] = {
    ConfigType.BOOLEAN: _parse_boolean,
    ConfigType.STRING: _parse_string,
    ConfigType.PASSWORD: _parse_password,
    ConfigType.SHORT: _integer_parser(ConfigType.SHORT),
    ConfigType.INT: _integer_parser(ConfigType.INT),
    ConfigType.LONG: _integer_parser(ConfigType.LONG),
    ConfigType.DOUBLE: _parse_double,
    ConfigType.LIST: _parse_list,
    ConfigType.CLASS: _parse_class,
}
