import pytest

from conveyor.data import (
    INT32_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    SchemaBuilderError,
    Struct,
    Type,
)


def test_builds_every_property_connect_schemas_have() -> None:
    schema = (
        SchemaBuilder.int32()
        .name("n")
        .version(3)
        .doc("the doc")
        .parameters({"a": "1"})
        .parameter("b", "2")
        .optional()
        .default_value(7)
        .build()
    )
    assert schema == Schema(
        Type.INT32,
        optional=True,
        default=7,
        name="n",
        version=3,
        doc="the doc",
        parameters={"a": "1", "b": "2"},
    )


def test_type_builds_a_schema_of_any_type() -> None:
    assert SchemaBuilder.type(Type.FLOAT32).build() == Schema(Type.FLOAT32)


def test_struct_fields_are_indexed_in_insertion_order() -> None:
    schema = SchemaBuilder.struct().field("z", INT32_SCHEMA).field("a", STRING_SCHEMA).build()
    assert [(f.name, f.index) for f in schema.fields] == [("z", 0), ("a", 1)]


def test_array_and_map_keep_their_element_schemas() -> None:
    array = SchemaBuilder.array(INT32_SCHEMA).build()
    mapping = SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build()
    assert array.value_schema == INT32_SCHEMA
    assert (mapping.key_schema, mapping.value_schema) == (STRING_SCHEMA, INT32_SCHEMA)


def test_a_duplicate_field_name_is_refused() -> None:
    builder = SchemaBuilder.struct().field("a", INT32_SCHEMA)
    with pytest.raises(SchemaBuilderError, match="duplication"):
        builder.field("a", STRING_SCHEMA)


def test_fields_are_refused_on_non_struct_types() -> None:
    with pytest.raises(SchemaBuilderError, match="INT32"):
        SchemaBuilder.int32().field("a", INT32_SCHEMA)


def test_a_property_cannot_be_set_twice_to_different_values() -> None:
    with pytest.raises(SchemaBuilderError, match="name"):
        SchemaBuilder.string().name("a").name("b")


def test_a_default_must_match_the_schema_type() -> None:
    with pytest.raises(SchemaBuilderError, match="default"):
        SchemaBuilder.int32().default_value("not a number")


def test_a_struct_default_must_have_the_struct_schema() -> None:
    other = SchemaBuilder.struct().field("b", INT32_SCHEMA).build()
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.struct().field("a", INT32_SCHEMA).default_value(Struct(other).put("b", 1))


def test_from_schema_copies_a_schema_so_it_can_be_extended() -> None:
    base = SchemaBuilder.struct().name("r").version(1).field("a", INT32_SCHEMA).build()
    extended = SchemaBuilder.from_schema(base).field("b", STRING_SCHEMA).build()
    assert extended.name == "r"
    assert [f.name for f in extended.fields] == ["a", "b"]
