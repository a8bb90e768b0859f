"""Client settings given as keyword arguments, read under Kafka's dotted names."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.log.errors import InvalidConfigError


def normalize_config(config: Mapping[str, object]) -> dict[str, object]:
    """Accept ``transaction_timeout_ms`` and ``transaction.timeout.ms`` alike; keys come back dotted."""
    return {key.replace("_", "."): value for key, value in config.items()}


def int_setting(config: Mapping[str, object], name: str, default: int, minimum: int = 0) -> int:
    """Read an integer setting, refusing values that are not integers or fall below ``minimum``."""
    raw = config.get(name, default)
    try:
        value = int(str(raw))
    except ValueError:
        raise InvalidConfigError(f"Setting {name}={raw!r} is not an integer") from None
    if value < minimum:
        raise InvalidConfigError(f"Setting {name}={value} is below its minimum {minimum}")
    return value


def choice_setting(config: Mapping[str, object], name: str, default: str, allowed: tuple[str, ...]) -> str:
    """Read a setting that must be one of ``allowed``."""
    value = str(config.get(name, default))
    if value not in allowed:
        raise InvalidConfigError(f"Setting {name}={value!r} is not one of {', '.join(allowed)}")
    return value
