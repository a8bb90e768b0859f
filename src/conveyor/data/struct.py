"""``Struct``, a value of a STRUCT schema, and ``validate_value``, Connect's check of a value's type."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import Any, Final, overload

from conveyor.data.errors import DataError
from conveyor.data.logical import LOGICAL_PYTHON_TYPES
from conveyor.data.schema import Field, Schema, Type

_INTEGER_BOUNDS: Final = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}

_PYTHON_TYPES: Final[dict[Type, tuple[type, ...]]] = {
    Type.INT8: (int,),
    Type.INT16: (int,),
    Type.INT32: (int,),
    Type.INT64: (int,),
    Type.FLOAT32: (float, int),
    Type.FLOAT64: (float, int),
    Type.BOOLEAN: (bool,),
    Type.STRING: (str,),
    Type.BYTES: (bytes, bytearray, memoryview),
    Type.ARRAY: (list, tuple),
    Type.MAP: (Mapping,),
}


def validate_value(schema: Schema | None, value: Any, field_name: str | None = None) -> None:
    """Raise ``DataError`` unless ``value`` is a valid value of ``schema`` (any value fits no schema).

    Integers must fit the width of their type, ``bool`` is not an integer, and a FLOAT may be given an
    ``int``; logical types need their Python class (``decimal.Decimal``, ``date``, ``time``, ``datetime``).
    """
    if schema is None:
        return
    if value is None:
        if not schema.optional:
            raise DataError(
                f'Invalid value: null used for required field: "{field_name}", '
                f"schema type: {schema.type.name}"
            )
        return
    logical_types = LOGICAL_PYTHON_TYPES.get(schema.name) if schema.name else None
    if logical_types is not None:
        _require_instance(schema, value, logical_types, field_name)
    elif schema.type is Type.STRUCT:
        _validate_struct(schema, value, field_name)
    else:
        _require_instance(schema, value, _PYTHON_TYPES[schema.type], field_name)
        _validate_contents(schema, value, field_name)


def _require_instance(schema: Schema, value: Any, expected: tuple[type, ...], field_name: str | None) -> None:
    if not isinstance(value, expected) or (type(value) is bool and bool not in expected):
        raise DataError(
            f"Invalid Python object for schema with type {schema.type.name}: {type(value).__name__} "
            f'for field: "{field_name}"'
        )


def _validate_contents(schema: Schema, value: Any, field_name: str | None) -> None:
    bounds = _INTEGER_BOUNDS.get(schema.type)
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise DataError(f'Value {value} is out of range for {schema.type.name} field: "{field_name}"')
    if schema.type is Type.ARRAY:
        for element in value:
            validate_value(schema.value_schema, element, field_name)
    elif schema.type is Type.MAP:
        for key, entry in value.items():
            validate_value(schema.key_schema, key, field_name)
            validate_value(schema.value_schema, entry, field_name)


def _validate_struct(schema: Schema, value: Any, field_name: str | None) -> None:
    if not isinstance(value, Struct):
        raise DataError(
            f"Invalid Python object for schema with type STRUCT: {type(value).__name__} "
            f'for field: "{field_name}"'
        )
    if value.schema != schema:
        raise DataError(f'Struct schemas do not match for field: "{field_name}"')
    value.validate()


class Struct:
    """A record-like value whose fields are defined by a STRUCT schema; ``put`` validates each value."""

    __slots__ = ("_schema", "_values")

    def __init__(self, schema: Schema) -> None:
        if schema.type is not Type.STRUCT:
            raise DataError(f"Not a struct schema: {schema!r}")
        self._schema = schema
        self._values: list[Any] = [None] * len(schema.fields)

    @property
    def schema(self) -> Schema:
        return self._schema

    def _lookup(self, field: str | Field) -> Field:
        if isinstance(field, Field):
            known = self._schema.fields[field.index] if field.index < len(self._schema.fields) else None
            if known is not field and known != field:
                raise DataError(f"Field {field.name} is not part of this struct's schema")
            return field
        found = self._schema.field(field)
        if found is None:
            raise DataError(f"{field} is not a valid field name")
        return found

    def put(self, field: str | Field, value: Any) -> Struct:
        """Set ``field`` to ``value`` after checking the value against the field's schema."""
        target = self._lookup(field)
        validate_value(target.schema, value, target.name)
        self._values[target.index] = value
        return self

    def get(self, field: str | Field) -> Any:
        """The value of ``field``, or the field schema's default when it was never set (or set to None)."""
        target = self._lookup(field)
        value = self._values[target.index]
        return target.schema.default if value is None else value

    def get_without_default(self, field: str | Field) -> Any:
        """The value of ``field`` as set, ignoring the schema default."""
        return self._values[self._lookup(field).index]

    def raw_values(self) -> tuple[Any, ...]:
        """Every field's value as set (no defaults applied), in field order; what converters read."""
        return tuple(self._values)

    @staticmethod
    def columns(structs: Sequence[Struct]) -> list[tuple[Any, ...]]:
        """Each field's values as set across ``structs`` of one schema, in field order: a batch's columns
        without a ``raw_values`` call per struct."""
        return list(zip(*map(_VALUES, structs), strict=True))

    @classmethod
    def unchecked(cls, schema: Schema, values: list[Any]) -> Struct:
        """A struct holding ``values`` in field order without validating them.

        Only for values already checked against ``schema``, such as those a converter decoded with it.
        """
        if len(values) != len(schema.fields):
            raise DataError(f"Expected {len(schema.fields)} values for {schema!r}, got {len(values)}")
        struct = cls(schema)
        struct._values = values
        return struct

    @classmethod
    def unchecked_many(cls, schema: Schema, rows: Iterable[list[Any]]) -> list[Struct]:
        """A struct for each list of values, as ``unchecked`` builds it, without a constructor call per
        struct: a source reading rows builds them by the thousand."""
        if schema.type is not Type.STRUCT:
            raise DataError(f"Not a struct schema: {schema!r}")
        width = len(schema.fields)
        new = object.__new__
        structs: list[Struct] = []
        append = structs.append
        for values in rows:
            if len(values) != width:
                raise DataError(f"Expected {width} values for {schema!r}, got {len(values)}")
            struct = new(cls)
            struct._schema = schema
            struct._values = values
            append(struct)
        return structs

    def validate(self) -> None:
        """Raise ``DataError`` naming the first field whose value does not fit its schema."""
        for field in self._schema.fields:
            value = self._values[field.index]
            if value is None and (field.schema.optional or field.schema.default is not None):
                continue
            validate_value(field.schema, value, field.name)

    def to_dict(self) -> dict[str, Any]:
        """The struct as a plain dict (nested structs too), field defaults applied."""
        return {field.name: _plain(self.get(field)) for field in self._schema.fields}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return NotImplemented
        return self._schema == other._schema and self._values == other._values

    def __hash__(self) -> int:
        return hash((self._schema, tuple(_hashable(value) for value in self._values)))

    def __repr__(self) -> str:
        body = ",".join(f"{field.name}={self._values[field.index]!r}" for field in self._schema.fields)
        return f"Struct{{{body}}}"


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, list | tuple):
        return [_plain(element) for element in value]
    if isinstance(value, Mapping):
        return {key: _plain(entry) for key, entry in value.items()}
    return value


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(element) for element in value)
    if isinstance(value, Mapping):
        return frozenset((_hashable(key), _hashable(entry)) for key, entry in value.items())
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    return value


_VALUES: Final = attrgetter("_values")


class StructColumn(Sequence[Struct]):
    """Structs of one schema held a field at a time, as a converter decoded a batch of them.

    It reads as a sequence of ``Struct``s, built when one is first read; ``field_columns()`` gives each
    field's values without building any, which is what a sink writing a batch a column at a time wants::

        def put_columns(self, batch: SinkColumns) -> None:
            if isinstance(batch.values, StructColumn):
                ids, names = batch.values.field_columns()  # no Struct built
    """

    __slots__ = ("_columns", "_schema", "_structs")

    def __init__(self, schema: Schema, columns: Sequence[Sequence[Any]]) -> None:
        """``columns`` holds one sequence per field of ``schema``, in field order, already checked
        against it (as ``Struct.unchecked`` takes values)."""
        if len(columns) != len(schema.fields) or len({len(column) for column in columns}) > 1:
            raise DataError(f"Expected {len(schema.fields)} columns of one length for {schema!r}")
        self._schema = schema
        self._columns = columns
        self._structs: list[Struct] | None = None

    @property
    def schema(self) -> Schema:
        return self._schema

    def field_columns(self) -> list[Sequence[Any]]:
        """Each field's values, in field order; as the structs now hold them once any was read."""
        if self._structs is None:
            return list(self._columns)
        return list(Struct.columns(self._structs))

    def _built(self) -> list[Struct]:
        if self._structs is None:
            self._structs = Struct.unchecked_many(self._schema, map(list, zip(*self._columns, strict=True)))
        return self._structs

    def __len__(self) -> int:
        return len(self._columns[0]) if self._columns else 0

    @overload
    def __getitem__(self, index: int) -> Struct: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Struct]: ...

    def __getitem__(self, index: int | slice) -> Struct | Sequence[Struct]:
        if isinstance(index, slice):
            if self._structs is None:
                return StructColumn(self._schema, [column[index] for column in self._columns])
            return self._structs[index]
        return self._built()[index]

    def __iter__(self) -> Iterator[Struct]:
        return iter(self._built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StructColumn):
            return list(self) == list(other)
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StructColumn({self._schema!r}, {len(self)} structs)"
