"""ConfigDef.validate and the validate response (Kafka Connect's ConfigInfos JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api.config import (
    ConfigDef,
    ConfigType,
    ConfigValue,
    Importance,
    Range,
    Recommender,
    ValidString,
    Width,
)

DEFINITION_KEYS = {
    "name",
    "type",
    "required",
    "default_value",
    "importance",
    "documentation",
    "group",
    "order",
    "width",
    "display_name",
    "dependents",
}
VALUE_KEYS = {"name", "value", "recommended_values", "errors", "visible"}


def by_name(values: list[ConfigValue]) -> dict[str, ConfigValue]:
    return {value.name: value for value in values}


def test_validate_collects_every_error_instead_of_raising() -> None:
    definition = (
        ConfigDef()
        .define("file", ConfigType.STRING)
        .define("batch.size", ConfigType.INT, default=2000, validator=Range.at_least(1))
    )
    values = by_name(definition.validate({"batch.size": "0"}))
    assert values["file"].errors == ['Missing required configuration "file" which has no default value.']
    assert values["batch.size"].errors == [
        "Invalid value 0 for configuration batch.size: Value must be at least 1"
    ]


def test_validate_reports_parsed_values_and_defaults() -> None:
    definition = ConfigDef().define("a", ConfigType.INT, default=5).define("b", ConfigType.LIST)
    values = by_name(definition.validate({"b": "x,y"}))
    assert (values["a"].value, values["b"].value) == (5, ["x", "y"])
    assert values["a"].errors == values["b"].errors == []


def test_a_dependent_that_is_not_defined_is_reported_as_an_invisible_error() -> None:
    definition = ConfigDef().define("a", ConfigType.INT, default=1, dependents=["ghost"])
    ghost = by_name(definition.validate({}))["ghost"]
    assert ghost.errors == ["ghost is referred in the dependents, but not defined."]
    assert ghost.visible is False


class ModeDependentRecommender(Recommender):
    """Offers formats only when mode is 'file'."""

    def valid_values(self, name: str, parsed_config: Mapping[str, Any]) -> list[Any]:
        return ["csv", "json"] if parsed_config.get("mode") == "file" else []

    def visible(self, name: str, parsed_config: Mapping[str, Any]) -> bool:
        return parsed_config.get("mode") == "file"


def recommending_definition() -> ConfigDef:
    return (
        ConfigDef()
        .define(
            "mode",
            ConfigType.STRING,
            default="file",
            validator=ValidString.in_("file", "socket"),
            dependents=["format"],
        )
        .define("format", ConfigType.STRING, default="csv", recommender=ModeDependentRecommender())
    )


def test_recommenders_see_the_parsed_values_of_other_keys() -> None:
    values = by_name(recommending_definition().validate({"mode": "file"}))
    assert values["format"].recommended_values == ["csv", "json"]
    assert values["format"].visible is True


def test_a_recommender_can_hide_a_key_that_does_not_apply() -> None:
    values = by_name(recommending_definition().validate({"mode": "socket"}))
    assert values["format"].visible is False
    assert values["format"].recommended_values == []


def test_config_infos_has_the_exact_shape_of_kafkas_validate_response() -> None:
    definition = (
        ConfigDef()
        .define(
            "batch.size",
            ConfigType.INT,
            default=2000,
            validator=Range.at_least(1),
            importance=Importance.LOW,
            documentation="Records per poll.",
            group="Common",
            order_in_group=3,
            width=Width.SHORT,
            display_name="Batch size",
            dependents=["other"],
        )
        .define("other", ConfigType.STRING, default="x")
    )
    infos = definition.config_infos("FileStreamSource", definition.validate({"batch.size": "10"}))
    assert set(infos) == {"name", "error_count", "groups", "configs"}
    assert infos["name"] == "FileStreamSource"
    assert infos["groups"] == ["Common"]
    first = infos["configs"][0]
    assert set(first) == {"definition", "value"}
    assert set(first["definition"]) == DEFINITION_KEYS
    assert set(first["value"]) == VALUE_KEYS
    assert first["definition"] == {
        "name": "batch.size",
        "type": "INT",
        "required": False,
        "default_value": "2000",
        "importance": "LOW",
        "documentation": "Records per poll.",
        "group": "Common",
        "order": 3,
        "width": "SHORT",
        "display_name": "Batch size",
        "dependents": ["other"],
    }
    assert first["value"] == {
        "name": "batch.size",
        "value": "10",
        "recommended_values": [],
        "errors": [],
        "visible": True,
    }


def test_a_required_key_has_a_null_default_value() -> None:
    definition = ConfigDef().define("file", ConfigType.STRING)
    info = definition.config_infos("p", definition.validate({"file": "f"}))["configs"][0]["definition"]
    assert (info["required"], info["default_value"]) == (True, None)


def test_config_infos_values_are_strings_in_kafkas_form() -> None:
    definition = (
        ConfigDef()
        .define("flag", ConfigType.BOOLEAN, default=False)
        .define("items", ConfigType.LIST, default="a,b")
        .define("ratio", ConfigType.DOUBLE, default=0.5)
    )
    configs = definition.config_infos("p", definition.validate({"flag": "TRUE"}))["configs"]
    assert [c["value"]["value"] for c in configs] == ["true", "a,b", "0.5"]
    assert [c["definition"]["default_value"] for c in configs] == ["false", "a,b", "0.5"]


def test_error_count_is_the_sum_of_all_errors() -> None:
    definition = (
        ConfigDef()
        .define("a", ConfigType.INT, default=1, validator=Range.at_least(1))
        .define("b", ConfigType.STRING)
        .define("c", ConfigType.BOOLEAN, default=True)
    )
    infos = definition.config_infos("p", definition.validate({"a": "oops", "c": "maybe"}))
    assert infos["error_count"] == sum(len(c["value"]["errors"]) for c in infos["configs"]) == 4


def test_a_value_without_a_definition_is_listed_with_a_null_definition() -> None:
    definition = ConfigDef().define("a", ConfigType.INT, default=1)
    extra = ConfigValue("runtime.only", "v", errors=["added by the runtime"])
    infos = definition.config_infos("p", [*definition.validate({}), extra])
    assert infos["configs"][-1] == {
        "definition": None,
        "value": {
            "name": "runtime.only",
            "value": "v",
            "recommended_values": [],
            "errors": ["added by the runtime"],
            "visible": True,
        },
    }
    assert infos["error_count"] == 1


def test_passwords_never_appear_in_the_validate_response() -> None:
    definition = (
        ConfigDef()
        .define("secret", ConfigType.PASSWORD, validator=ValidString.in_("right"))
        .define("default.secret", ConfigType.PASSWORD, default="builtin-secret")
    )
    infos = definition.config_infos("p", definition.validate({"secret": "wrong-secret"}))
    rendered = repr(infos)
    assert "wrong-secret" not in rendered
    assert "builtin-secret" not in rendered
    assert infos["configs"][0]["value"]["value"] == "[hidden]"
    assert infos["configs"][1]["definition"]["default_value"] == "[hidden]"
    assert infos["error_count"] == 1
