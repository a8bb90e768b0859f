"""Connect schemas: the type of a key, value, field or header, as Kafka Connect's ``ConnectSchema``."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from conveyor.data.errors import DataError

_EMPTY_PARAMETERS: Mapping[str, str] = MappingProxyType({})


class Type(enum.Enum):
    """The twelve Connect schema types; values are Kafka's lower-case names (as in the JSON envelope)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        """True for every type except ARRAY, MAP and STRUCT."""
        return self not in _COMPOSITE_TYPES


_COMPOSITE_TYPES = frozenset({Type.ARRAY, Type.MAP, Type.STRUCT})


@dataclass(frozen=True)
class Field:
    """One named, positioned field of a STRUCT schema."""

    name: str
    index: int
    schema: Schema


@dataclass(frozen=True)
class Schema:
    """An immutable Connect schema; compare and hash it freely (default and parameters are not hashed)."""

    type: Type
    optional: bool = False
    default: Any = field(default=None, hash=False)
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    parameters: Mapping[str, str] = field(default_factory=lambda: _EMPTY_PARAMETERS, hash=False)
    key_schema: Schema | None = None
    value_schema: Schema | None = None
    fields: tuple[Field, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.parameters, MappingProxyType):
            object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))
        if self.fields and self.type is not Type.STRUCT:
            raise DataError(f"Only STRUCT schemas have fields, not {self.type.name}")
        if self.key_schema is not None and self.type is not Type.MAP:
            raise DataError(f"Only MAP schemas have a key schema, not {self.type.name}")
        if self.value_schema is not None and self.type not in (Type.MAP, Type.ARRAY):
            raise DataError(f"Only MAP and ARRAY schemas have a value schema, not {self.type.name}")
        if self.type is Type.MAP and (self.key_schema is None or self.value_schema is None):
            raise DataError("A MAP schema needs both a key schema and a value schema")
        if self.type is Type.ARRAY and self.value_schema is None:
            raise DataError("An ARRAY schema needs a value schema")
        object.__setattr__(self, "_fields_by_name", {f.name: f for f in self.fields})

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema):
            return NotImplemented
        return (
            self.type is other.type
            and self.optional == other.optional
            and self.name == other.name
            and self.version == other.version
            and self.doc == other.doc
            and self.key_schema == other.key_schema
            and self.value_schema == other.value_schema
            and self.fields == other.fields
            and dict(self.parameters) == dict(other.parameters)
            and _same_default(self.default, other.default)
        )

    def __hash__(self) -> int:
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(
                (
                    self.type,
                    self.optional,
                    self.name,
                    self.version,
                    self.doc,
                    self.key_schema,
                    self.value_schema,
                    self.fields,
                )
            )
            object.__setattr__(self, "_hash", cached)
        return cached

    def __repr__(self) -> str:
        label = self.type.name if self.name is None else f"{self.name}:{self.type.name}"
        return f"Schema{{{label}{'' if not self.optional else ',optional'}}}"

    def field(self, name: str) -> Field | None:
        """The STRUCT field called ``name``, or None when there is none."""
        if self.type is not Type.STRUCT:
            raise DataError(f"Cannot look up fields on non-struct type {self.type.name}")
        fields_by_name: dict[str, Field] = self.__dict__["_fields_by_name"]
        return fields_by_name.get(name)

    @property
    def is_optional(self) -> bool:
        """Alias of ``optional`` matching Connect's ``isOptional()``."""
        return self.optional


def _same_default(left: Any, right: Any) -> bool:
    if isinstance(left, bytes | bytearray | memoryview) and isinstance(right, bytes | bytearray | memoryview):
        return bytes(left) == bytes(right)
    return bool(left == right)


class SchemaAndValue(NamedTuple):
    """A value together with the schema that describes it (the schema is None for schema-less data)."""

    schema: Schema | None
    value: Any


INT8_SCHEMA = Schema(Type.INT8)
INT16_SCHEMA = Schema(Type.INT16)
INT32_SCHEMA = Schema(Type.INT32)
INT64_SCHEMA = Schema(Type.INT64)
FLOAT32_SCHEMA = Schema(Type.FLOAT32)
FLOAT64_SCHEMA = Schema(Type.FLOAT64)
BOOLEAN_SCHEMA = Schema(Type.BOOLEAN)
STRING_SCHEMA = Schema(Type.STRING)
BYTES_SCHEMA = Schema(Type.BYTES)

OPTIONAL_INT8_SCHEMA = Schema(Type.INT8, optional=True)
OPTIONAL_INT16_SCHEMA = Schema(Type.INT16, optional=True)
OPTIONAL_INT32_SCHEMA = Schema(Type.INT32, optional=True)
OPTIONAL_INT64_SCHEMA = Schema(Type.INT64, optional=True)
OPTIONAL_FLOAT32_SCHEMA = Schema(Type.FLOAT32, optional=True)
OPTIONAL_FLOAT64_SCHEMA = Schema(Type.FLOAT64, optional=True)
OPTIONAL_BOOLEAN_SCHEMA = Schema(Type.BOOLEAN, optional=True)
OPTIONAL_STRING_SCHEMA = Schema(Type.STRING, optional=True)
OPTIONAL_BYTES_SCHEMA = Schema(Type.BYTES, optional=True)
