"""``SchemaBuilder``: the fluent way to make a ``Schema``, with the checks of Connect's ``SchemaBuilder``."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from conveyor.data.errors import DataError, SchemaBuilderError
from conveyor.data.schema import Field, Schema, Type
from conveyor.data.struct import validate_value


class SchemaBuilder:
    """Collects a schema's properties and fields, then ``build()`` freezes them into a ``Schema``.

    As in Connect, a property (name, version, doc, optional, default) may be set only once.
    """

    def __init__(self, schema_type: Type) -> None:
        self._type = schema_type
        self._optional: builtins.bool | None = None
        self._default: Any = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] = {}
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None
        self._fields: dict[str, Field] = {}

    @classmethod
    def type(cls, schema_type: Type) -> SchemaBuilder:
        return cls(schema_type)

    @classmethod
    def int8(cls) -> SchemaBuilder:
        return cls(Type.INT8)

    @classmethod
    def int16(cls) -> SchemaBuilder:
        return cls(Type.INT16)

    @classmethod
    def int32(cls) -> SchemaBuilder:
        return cls(Type.INT32)

    @classmethod
    def int64(cls) -> SchemaBuilder:
        return cls(Type.INT64)

    @classmethod
    def float32(cls) -> SchemaBuilder:
        return cls(Type.FLOAT32)

    @classmethod
    def float64(cls) -> SchemaBuilder:
        return cls(Type.FLOAT64)

    @classmethod
    def bool(cls) -> SchemaBuilder:
        return cls(Type.BOOLEAN)

    @classmethod
    def boolean(cls) -> SchemaBuilder:
        return cls(Type.BOOLEAN)

    @classmethod
    def string(cls) -> SchemaBuilder:
        return cls(Type.STRING)

    @classmethod
    def bytes(cls) -> SchemaBuilder:
        return cls(Type.BYTES)

    @classmethod
    def struct(cls) -> SchemaBuilder:
        return cls(Type.STRUCT)

    @classmethod
    def array(cls, value_schema: Schema) -> SchemaBuilder:
        builder = cls(Type.ARRAY)
        builder._value_schema = _require_schema(value_schema, "value schema")
        return builder

    @classmethod
    def map(cls, key_schema: Schema, value_schema: Schema) -> SchemaBuilder:
        builder = cls(Type.MAP)
        builder._key_schema = _require_schema(key_schema, "key schema")
        builder._value_schema = _require_schema(value_schema, "value schema")
        return builder

    @classmethod
    def from_schema(cls, schema: Schema, *, with_fields: builtins.bool = True) -> SchemaBuilder:
        """A builder holding everything ``schema`` has (its fields too unless ``with_fields`` is false)."""
        builder = cls(schema.type)
        builder._optional = schema.optional
        builder._default = schema.default
        builder._name = schema.name
        builder._version = schema.version
        builder._doc = schema.doc
        builder._parameters = dict(schema.parameters)
        builder._key_schema = schema.key_schema
        builder._value_schema = schema.value_schema
        if with_fields:
            for field in schema.fields:
                builder.field(field.name, field.schema)
        return builder

    def _check_unset(self, what: str, current: Any, new: Any) -> None:
        if current is not None and current != new:
            raise SchemaBuilderError(f"Invalid SchemaBuilder call: {what} has already been set.")

    def name(self, name: str) -> SchemaBuilder:
        self._check_unset("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int) -> SchemaBuilder:
        self._check_unset("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str) -> SchemaBuilder:
        self._check_unset("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, key: str, value: str) -> SchemaBuilder:
        self._parameters[key] = value
        return self

    def parameters(self, parameters: Mapping[str, str]) -> SchemaBuilder:
        self._parameters.update(parameters)
        return self

    def optional(self) -> SchemaBuilder:
        self._check_unset("optional", self._optional, True)
        self._optional = True
        return self

    def required(self) -> SchemaBuilder:
        self._check_unset("optional", self._optional, False)
        self._optional = False
        return self

    def default_value(self, value: Any) -> SchemaBuilder:
        """Set the default; it must be a valid value of the schema being built."""
        self._check_unset("default", self._default, value)
        try:
            validate_value(self._probe_schema(), value)
        except DataError as error:
            raise SchemaBuilderError(f"Invalid default value: {error}") from error
        self._default = value
        return self

    def field(self, name: str, schema: Schema) -> SchemaBuilder:
        """Append a STRUCT field; names must be non-empty and unique."""
        if self._type is not Type.STRUCT:
            raise SchemaBuilderError("Cannot create fields on type " + self._type.name)
        if not name:
            raise SchemaBuilderError("fieldName cannot be null.")
        _require_schema(schema, f"schema for field {name}")
        if name in self._fields:
            raise SchemaBuilderError(f"Cannot create field because of field name duplication {name}")
        self._fields[name] = Field(name, len(self._fields), schema)
        return self

    def fields(self) -> tuple[Field, ...]:
        """The fields added so far."""
        if self._type is not Type.STRUCT:
            raise DataError("Cannot list fields on non-struct type")
        return tuple(self._fields.values())

    def _probe_schema(self) -> Schema:
        """The schema built so far without its default, to check a candidate default against."""
        return self._schema_with_default(None)

    def build(self) -> Schema:
        """Freeze the builder into an immutable ``Schema``."""
        return self._schema_with_default(self._default)

    def _schema_with_default(self, default: Any) -> Schema:
        return Schema(
            self._type,
            optional=self._optional is True,
            default=default,
            name=self._name,
            version=self._version,
            doc=self._doc,
            parameters=self._parameters,
            key_schema=self._key_schema,
            value_schema=self._value_schema,
            fields=tuple(self._fields.values()),
        )

    def schema(self) -> Schema:
        """Alias of ``build()``, as Connect's ``SchemaBuilder.schema()``."""
        return self.build()


def _require_schema(schema: Any, what: str) -> Schema:
    if not isinstance(schema, Schema):
        raise SchemaBuilderError(f"{what} must be a Schema, not {type(schema).__name__}")
    return schema
