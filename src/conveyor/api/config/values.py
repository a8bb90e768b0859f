"""The result of validating one config key: its parsed value, suggestions, errors and visibility."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ConfigValue:
    """One key's validation outcome (Kafka's ``ConfigValue``); ``errors`` are human-readable messages."""

    name: str
    value: Any = None
    recommended_values: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    visible: bool = True

    def add_error(self, message: str) -> None:
        self.errors.append(message)
