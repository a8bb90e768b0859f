"""Connect schemas in the JSON envelope: writing them as Kafka's ``asJsonSchema`` does and reading them back.

Keys are written in Kafka's order: ``type``; ``items`` (array), ``keys`` and ``values`` (map) or
``fields`` (struct, each field's schema followed by its ``field`` name); then ``optional``, ``name``,
``version``, ``doc``, ``parameters`` and ``default``.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any, Final

from conveyor.convert.json_encode import ValueEncoder
from conveyor.data import DataError, Schema, SchemaBuilder, SchemaBuilderError, Type

EncoderFactory = Callable[[Schema], ValueEncoder]
DefaultDecoder = Callable[[Schema, Any], Any]

_JSON_TYPE_NAMES: Final = {
    schema_type: {Type.FLOAT32: "float", Type.FLOAT64: "double"}.get(schema_type, schema_type.value)
    for schema_type in Type
}
"""The envelope's type names: Connect's, except that FLOAT32 is ``float`` and FLOAT64 ``double``."""
_TYPES_BY_NAME: Final = {name: schema_type for schema_type, name in _JSON_TYPE_NAMES.items()}


def json_schema_text(schema: Schema, encoder_for: EncoderFactory) -> str:
    """The envelope's ``schema`` object for ``schema``; ``encoder_for`` writes its default value."""
    return "{" + _schema_members(schema, encoder_for) + "}"


def _schema_members(schema: Schema, encoder_for: EncoderFactory) -> str:
    members = ['"type":"' + _JSON_TYPE_NAMES[schema.type] + '"']
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        members.append('"items":' + json_schema_text(schema.value_schema, encoder_for))
    elif schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        members.append('"keys":' + json_schema_text(schema.key_schema, encoder_for))
        members.append('"values":' + json_schema_text(schema.value_schema, encoder_for))
    elif schema.type is Type.STRUCT:
        fields = (
            "{"
            + _schema_members(field.schema, encoder_for)
            + ',"field":'
            + encode_basestring(field.name)
            + "}"
            for field in schema.fields
        )
        members.append('"fields":[' + ",".join(fields) + "]")
    members.append('"optional":' + ("true" if schema.optional else "false"))
    if schema.name is not None:
        members.append('"name":' + encode_basestring(schema.name))
    if schema.version is not None:
        members.append('"version":' + str(schema.version))
    if schema.doc is not None:
        members.append('"doc":' + encode_basestring(schema.doc))
    if schema.parameters:
        parameters = ",".join(
            encode_basestring(key) + ":" + encode_basestring(value)
            for key, value in schema.parameters.items()
        )
        members.append('"parameters":{' + parameters + "}")
    if schema.default is not None:
        members.append('"default":' + encoder_for(schema)(schema.default))
    return ",".join(members)


def connect_schema(node: Any, decode_default: DefaultDecoder) -> Schema | None:
    """The Connect schema an envelope's parsed ``schema`` object describes (None for JSON null)."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise DataError("Schema must be a JSON object or null")
    type_name = node.get("type")
    schema_type = _TYPES_BY_NAME.get(type_name) if isinstance(type_name, str) else None
    if not isinstance(type_name, str):
        raise DataError("Schema must contain 'type' field")
    if schema_type is None:
        raise DataError(f"Unknown schema type: {type_name}")
    try:
        builder = _builder_with_children(schema_type, node, decode_default)
        _apply_properties(builder, node, decode_default)
        return builder.build()
    except SchemaBuilderError as error:
        raise DataError(f"Invalid schema in JSON envelope: {error.reason}") from error


def _builder_with_children(
    schema_type: Type, node: dict[str, Any], decode_default: DefaultDecoder
) -> SchemaBuilder:
    if schema_type is Type.ARRAY:
        items = connect_schema(node.get("items"), decode_default)
        if items is None:
            raise DataError("Array schema did not specify the element type")
        return SchemaBuilder.array(items)
    if schema_type is Type.MAP:
        if "keys" not in node:
            raise DataError("Map schema did not specify the key type")
        if "values" not in node:
            raise DataError("Map schema did not specify the value type")
        keys = connect_schema(node["keys"], decode_default)
        values = connect_schema(node["values"], decode_default)
        if keys is None or values is None:
            raise DataError("Map schema must give both the key and the value schema")
        return SchemaBuilder.map(keys, values)
    builder = SchemaBuilder.type(schema_type)
    if schema_type is Type.STRUCT:
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise DataError('Struct schema\'s "fields" argument is not an array.')
        for field in fields:
            name = field.get("field") if isinstance(field, dict) else None
            if not isinstance(name, str):
                raise DataError("Struct schema's field name not specified properly")
            field_schema = connect_schema(field, decode_default)
            assert field_schema is not None
            builder.field(name, field_schema)
    return builder


def _apply_properties(builder: SchemaBuilder, node: dict[str, Any], decode_default: DefaultDecoder) -> None:
    if node.get("optional") is True:
        builder.optional()
    else:
        builder.required()
    name = node.get("name")
    if isinstance(name, str):
        builder.name(name)
    version = node.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        builder.version(version)
    doc = node.get("doc")
    if isinstance(doc, str):
        builder.doc(doc)
    parameters = node.get("parameters")
    if isinstance(parameters, dict):
        for key, value in parameters.items():
            if not isinstance(value, str):
                raise DataError("Schema parameters must have string values.")
            builder.parameter(key, value)
    if node.get("default") is not None:
        builder.default_value(decode_default(builder.build(), node["default"]))
