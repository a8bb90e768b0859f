"""Memory sizes written as Spark writes them (`512m`, `2g`), for Conveyor's own memory keys."""

from __future__ import annotations

import re

from conveyor.errors import ConfigError

_UNITS = {"": 1024**2, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_SIZE = re.compile(r"(\d+)\s*([kmgtp]?)b?", re.IGNORECASE)
OFF_VALUES = ("0", "none")
"""What turns a memory limit off."""


def memory_limit_bytes(name: str, value: object) -> int | None:
    """The size `value` gives in bytes, None for an off value; a bare number is MiB, as in Spark's
    `spark.executor.pyspark.memory`. Raises `ConfigError` naming `name` otherwise."""
    text = str(value).strip().lower()
    if text in OFF_VALUES:
        return None
    match = _SIZE.fullmatch(text)
    if match is None or int(match.group(1)) == 0:
        raise ConfigError(
            name, value, "Give a size such as 512m or 2g (k, m, g, t; a bare number is MiB), or 0 or none"
        )
    number, unit = match.groups()
    if text.endswith("b") and not unit:
        return int(number)
    return int(number) * _UNITS[unit.lower()]


def ensure_memory_limit(name: str, value: object) -> None:
    """A config validator: `value` is a size or an off value."""
    memory_limit_bytes(name, value)
