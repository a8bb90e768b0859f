"""Field paths into structs and maps, as KIP-821 defines them (``field.syntax.version`` V1 or V2).

V1 names one top-level field. V2 reads dots as steps into nested structs or maps, and backticks quote a
step that itself contains dots (a backslash escapes a backtick inside a quoted step).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigError
from conveyor.data import Field, Schema, Struct, Type

FIELD_SYNTAX_VERSION_CONFIG = "field.syntax.version"
FIELD_SYNTAX_VERSION_DOC = (
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited to "
    "access the elements at the root level of the struct or map. If set to `V2`, the syntax will support "
    "accessing nested elements. To access nested elements, dotted notation is used. If dots are already "
    "included in the field name, then backtick pairs can be used to wrap field names containing dots."
)


class FieldSyntaxVersion(enum.Enum):
    """How a configured field name is split into path steps."""

    V1 = "V1"
    V2 = "V2"

    @classmethod
    def of(cls, text: str) -> FieldSyntaxVersion:
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise ConfigError(FIELD_SYNTAX_VERSION_CONFIG, text, "must be one of V1, V2") from None


def _incomplete_backtick(path: str, position: int) -> ConfigError:
    return ConfigError(
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before backtick at "
        f"position {position} to escape it"
    )


def parse_v2_steps(path: str) -> tuple[str, ...]:
    """Split a V2 path into its steps."""
    steps: list[str] = []
    index = 0
    while 0 <= index < len(path):
        if path[index] != "`":
            dot = path.find(".", index)
            steps.append(path[index:] if dot < 0 else path[index:dot])
            index = -1 if dot < 0 else dot + 1
            continue
        opening = index
        start = index = index + 1
        step = ""
        while True:
            index = path.find("`", index)
            if index < 0:
                raise _incomplete_backtick(path, opening)
            escaped = path[index - 1] == "\\"
            if index >= len(path) - 1:
                if escaped:
                    raise _incomplete_backtick(path, opening)
                steps.append(step + path[start:index])
                index += 1
                break
            if path[index + 1] != ".":
                index += 1
                continue
            if escaped:
                step += path[start : index - 1] + "`"
                index += 1
                start = index
                continue
            steps.append(step + path[start:index])
            index += 2
            break
    if path.endswith("."):
        steps.append("")
    return tuple(steps)


class SingleFieldPath:
    """One configured field path: the steps from the top-level struct or map down to one field."""

    def __init__(self, text: str, version: FieldSyntaxVersion) -> None:
        self.text = text
        self.version = version
        self.steps: tuple[str, ...] = (text,) if version is FieldSyntaxVersion.V1 else parse_v2_steps(text)

    def __repr__(self) -> str:
        return f"SingleFieldPath({self.text!r}, {self.version.value})"

    @property
    def last_step(self) -> str:
        return self.steps[-1]

    def field_from(self, schema: Schema | None) -> Field | None:
        """The field this path names within ``schema``, or None when it is absent."""
        current = schema
        for step in self.steps[:-1]:
            if current is None or current.type is not Type.STRUCT:
                return None
            found = current.field(step)
            if found is None:
                return None
            current = found.schema
        if current is None or current.type is not Type.STRUCT:
            return None
        return current.field(self.last_step)

    def value_from_struct(self, struct: Struct | None, replace_null_with_default: bool = True) -> Any:
        """The value this path names within ``struct``, or None when it is absent."""
        current = struct
        for step in self.steps[:-1]:
            if current is None or current.schema.field(step) is None:
                return None
            nested = current.get(step)
            current = nested if isinstance(nested, Struct) else None
        if current is None or current.schema.field(self.last_step) is None:
            return None
        if replace_null_with_default:
            return current.get(self.last_step)
        return current.get_without_default(self.last_step)

    def value_from_map(self, value: Mapping[str, Any] | None) -> Any:
        """The value this path names within a schemaless map, or None when it is absent."""
        current: Any = value
        for step in self.steps[:-1]:
            if not isinstance(current, Mapping):
                return None
            current = current.get(step)
        return current.get(self.last_step) if isinstance(current, Mapping) else None
