"""Validators a config key can carry; each raises :class:`ConfigError` with Kafka's wording.

Their ``str()`` is the "valid values" text that documentation shows, as in Kafka's ``ConfigDef``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Self

from conveyor.api.errors import ConfigError

__all__ = [
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "LambdaValidator",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "Range",
    "Recommender",
    "ValidList",
    "ValidString",
    "Validator",
]


class Validator(abc.ABC):
    """Checks a parsed value; raises :class:`ConfigError` naming the key when it is not acceptable."""

    @abc.abstractmethod
    def ensure_valid(self, name: str, value: Any) -> None: ...

    def __str__(self) -> str:
        return ""


class Range(Validator):
    """A number within ``[min, max]``, either bound optional.

    >>> Range.at_least(1).ensure_valid("tasks.max", 2)
    """

    def __init__(self, minimum: float | None, maximum: float | None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    @classmethod
    def at_least(cls, minimum: float) -> Range:
        return cls(minimum, None)

    @classmethod
    def between(cls, minimum: float, maximum: float) -> Range:
        return cls(minimum, maximum)

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            raise ConfigError(name, None, "Value must be non-null")
        if self.minimum is not None and value < self.minimum:
            raise ConfigError(name, value, f"Value must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ConfigError(name, value, f"Value must be no more than {self.maximum}")

    def __str__(self) -> str:
        if self.minimum is None and self.maximum is None:
            return "[...]"
        if self.minimum is None:
            return f"[...,{self.maximum}]"
        if self.maximum is None:
            return f"[{self.minimum},...]"
        return f"[{self.minimum},...,{self.maximum}]"


class _StringChoiceValidator(Validator):
    """A validator over a fixed set of strings, built as ``cls(strings)`` or ``cls.in_(*strings)``."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings = list(valid_strings)

    @classmethod
    def in_(cls, *valid_strings: str) -> Self:
        return cls(valid_strings)


class ValidString(_StringChoiceValidator):
    """One of a fixed set of strings, compared exactly."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value not in self.valid_strings:
            raise ConfigError(name, value, f"String must be one of: {', '.join(self.valid_strings)}")

    def __str__(self) -> str:
        return f"[{', '.join(self.valid_strings)}]"


class CaseInsensitiveValidString(_StringChoiceValidator):
    """One of a fixed set of strings, ignoring case."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        super().__init__(valid_strings)
        self._folded = {s.casefold() for s in self.valid_strings}

    def ensure_valid(self, name: str, value: Any) -> None:
        if not isinstance(value, str) or value.casefold() not in self._folded:
            raise ConfigError(
                name, value, f"String must be one of (case insensitive): {', '.join(self.valid_strings)}"
            )

    def __str__(self) -> str:
        return f"(case insensitive) [{', '.join(self.valid_strings)}]"


class ValidList(_StringChoiceValidator):
    """A list whose every element is one of a fixed set of strings."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        super().__init__(valid_strings)
        self._valid_string = ValidString(self.valid_strings)

    def ensure_valid(self, name: str, value: Any) -> None:
        for element in value or ():
            self._valid_string.ensure_valid(name, element)

    def __str__(self) -> str:
        return str(self._valid_string)


class NonEmptyString(Validator):
    """A string that, when given, is not empty (``None`` passes, as in Kafka)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is not None and value == "":
            raise ConfigError(name, value, "String must be non-empty")

    def __str__(self) -> str:
        return "non-empty string"


class NonEmptyStringWithoutControlChars(Validator):
    """A non-empty string free of control characters (used for connector names)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            return
        if value == "":
            raise ConfigError(name, value, "String may not be empty")
        control_chars = [str(ord(c)) for c in value if _is_iso_control(c)]
        if control_chars:
            raise ConfigError(
                name,
                value,
                "String may not contain control sequences but had the following ASCII chars: "
                + ", ".join(control_chars),
            )

    def __str__(self) -> str:
        return "non-empty string without ISO control characters"


class NonNullValidator(Validator):
    """Any value but ``None``."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            raise ConfigError(name, None, "entry must be non null")

    def __str__(self) -> str:
        return "non-null string"


class LambdaValidator(Validator):
    """A validator from a function ``fn(name, value)`` that raises :class:`ConfigError` when invalid.

    ``description`` is the "valid values" text shown in documentation.
    """

    def __init__(self, fn: Callable[[str, Any], None], description: str) -> None:
        self._fn = fn
        self._description = description

    @classmethod
    def with_(cls, fn: Callable[[str, Any], None], description: str) -> LambdaValidator:
        return cls(fn, description)

    def ensure_valid(self, name: str, value: Any) -> None:
        self._fn(name, value)

    def __str__(self) -> str:
        return self._description


class CompositeValidator(Validator):
    """All of several validators, checked in order."""

    def __init__(self, validators: Iterable[Validator]) -> None:
        self.validators = list(validators)

    @classmethod
    def of(cls, *validators: Validator) -> CompositeValidator:
        return cls(validators)

    def ensure_valid(self, name: str, value: Any) -> None:
        for validator in self.validators:
            validator.ensure_valid(name, value)

    def __str__(self) -> str:
        return ", ".join(s for s in (str(v) for v in self.validators) if s)


class Recommender(abc.ABC):
    """Suggests values for a key, and whether it is relevant, given the other parsed values."""

    @abc.abstractmethod
    def valid_values(self, name: str, parsed_config: Mapping[str, Any]) -> list[Any]: ...

    @abc.abstractmethod
    def visible(self, name: str, parsed_config: Mapping[str, Any]) -> bool: ...


def _is_iso_control(char: str) -> bool:
    code = ord(char)
    return code <= 0x1F or 0x7F <= code <= 0x9F
