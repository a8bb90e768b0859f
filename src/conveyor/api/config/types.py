"""The vocabulary of a config definition: value types, importance, width, passwords, "no default"."""

from __future__ import annotations

import enum
from typing import Final, final


class ConfigType(enum.Enum):
    """The type of a config key; values are Kafka's upper-case names, as the REST API shows them."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(enum.Enum):
    """How much a user should care about a key (shown in docs and the validate response)."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Width(enum.Enum):
    """How wide a UI field for the key should be."""

    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


@final
class _NoDefault:
    """Marks a key that has no default and so must be given."""

    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Final = _NoDefault()

HIDDEN: Final = "[hidden]"


@final
class Password:
    """A secret config value that prints as ``[hidden]``; ``.value`` gives the secret itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    @property
    def value(self) -> str:
        return self._value

    def __str__(self) -> str:
        return HIDDEN

    def __repr__(self) -> str:
        return HIDDEN

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)
