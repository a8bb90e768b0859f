"""The per-alias config keys a chain contributes to connector validation (Kafka's ConnectorConfig.enrich)."""

from __future__ import annotations

from conveyor.transforms import transformation_config_def

PROPS = {
    "transforms": "route",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.predicate": "isFoo",
    "predicates": "isFoo",
    "predicates.isFoo.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
}


def test_keys_are_prefixed_with_the_alias_and_grouped() -> None:
    keys = transformation_config_def(PROPS).config_keys()
    assert {
        "transforms.route.type",
        "transforms.route.predicate",
        "transforms.route.negate",
        "transforms.route.regex",
        "transforms.route.replacement",
        "predicates.isFoo.type",
        "predicates.isFoo.pattern",
    } <= set(keys)
    assert keys["transforms.route.regex"].group == "Transforms: route"
    assert keys["predicates.isFoo.pattern"].group == "Predicates: isFoo"


def test_validation_reports_missing_transformation_settings() -> None:
    values = {value.name: value for value in transformation_config_def(PROPS).validate(PROPS)}
    assert values["transforms.route.regex"].errors
    assert values["predicates.isFoo.pattern"].errors
    assert not values["transforms.route.type"].errors


def test_validation_reports_an_unknown_class() -> None:
    props = {"transforms": "a", "transforms.a.type": "com.example.Missing"}
    values = {value.name: value for value in transformation_config_def(props).validate(props)}
    assert any("could not be found" in error for error in values["transforms.a.type"].errors)


def test_validation_reports_an_undeclared_predicate_alias() -> None:
    props = {"transforms": "a", "transforms.a.type": "Filter", "transforms.a.predicate": "nope"}
    values = {value.name: value for value in transformation_config_def(props).validate(props)}
    assert values["transforms.a.predicate"].errors


def test_a_valid_chain_validates_without_errors() -> None:
    props = {
        **PROPS,
        "transforms.route.regex": "foo",
        "transforms.route.replacement": "bar",
        "predicates.isFoo.pattern": "foo.*",
    }
    values = transformation_config_def(props).validate(props)
    assert all(not value.errors for value in values)
