"""ConfigDef.parse: coercion of raw values to declared types, defaults, required keys."""

from __future__ import annotations

import re

import pytest

from conveyor.api.config import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Password,
    Range,
    ValidString,
)


def single_key(config_type: ConfigType, **options: object) -> ConfigDef:
    return ConfigDef().define("key", config_type, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("config_type", "raw", "expected"),
    [
        (ConfigType.BOOLEAN, "TRUE", True),
        (ConfigType.BOOLEAN, " false ", False),
        (ConfigType.INT, " 42 ", 42),
        (ConfigType.SHORT, "-7", -7),
        (ConfigType.LONG, "9223372036854775807", 2**63 - 1),
        (ConfigType.DOUBLE, "1.5", 1.5),
        (ConfigType.DOUBLE, 3, 3.0),
        (ConfigType.STRING, "  padded  ", "padded"),
        (ConfigType.LIST, "a, b ,c", ["a", "b", "c"]),
        (ConfigType.LIST, "", []),
        (ConfigType.LIST, ["x", "y"], ["x", "y"]),
    ],
)
def test_parse_coerces_strings_to_the_declared_type(
    config_type: ConfigType, raw: object, expected: object
) -> None:
    assert single_key(config_type).parse({"key": raw}) == {"key": expected}


def test_parse_keeps_a_trailing_empty_list_element_as_kafka_does() -> None:
    assert single_key(ConfigType.LIST).parse({"key": "a,"}) == {"key": ["a", ""]}


@pytest.mark.parametrize(
    ("config_type", "raw", "reason"),
    [
        (ConfigType.BOOLEAN, "yes", "Expected value to be either true or false"),
        (ConfigType.INT, "1.0", "Not a number of type INT"),
        (ConfigType.INT, "2147483648", "Not a number of type INT"),
        (ConfigType.SHORT, "40000", "Not a number of type SHORT"),
        (ConfigType.INT, True, "Expected value to be a 32-bit integer, but it was a bool"),
        (ConfigType.DOUBLE, "abc", "Not a number of type DOUBLE"),
        (ConfigType.STRING, 5, "Expected value to be a string, but it was a int"),
    ],
)
def test_parse_rejects_a_bad_value_naming_the_key(config_type: ConfigType, raw: object, reason: str) -> None:
    with pytest.raises(ConfigError) as raised:
        single_key(config_type).parse({"key": raw})
    assert str(raised.value) == f"Invalid value {raw} for configuration key: {reason}"
    assert raised.value.name == "key"


def test_parse_fills_in_defaults_for_absent_keys() -> None:
    definition = ConfigDef().define("batch.size", ConfigType.INT, default="2000")
    assert definition.parse({}) == {"batch.size": 2000}


def test_parse_of_a_missing_required_key_names_it() -> None:
    with pytest.raises(
        ConfigError, match=re.escape('Missing required configuration "file" which has no default value.')
    ):
        ConfigDef().define("file", ConfigType.STRING).parse({})


def test_parse_runs_the_validator_on_given_values() -> None:
    definition = ConfigDef().define("tasks.max", ConfigType.INT, default=1, validator=Range.at_least(1))
    with pytest.raises(
        ConfigError, match=re.escape("Invalid value 0 for configuration tasks.max: Value must be at least 1")
    ):
        definition.parse({"tasks.max": "0"})


def test_parse_ignores_keys_that_are_not_defined() -> None:
    assert single_key(ConfigType.INT, default=1).parse({"other": "x"}) == {"key": 1}


def test_define_rejects_a_default_its_validator_refuses() -> None:
    with pytest.raises(ConfigError, match=re.escape("String must be one of: a, b")):
        ConfigDef().define("mode", ConfigType.STRING, default="c", validator=ValidString.in_("a", "b"))


def test_define_rejects_a_key_defined_twice() -> None:
    definition = ConfigDef().define("key", ConfigType.INT)
    with pytest.raises(ConfigError, match=re.escape("Configuration key is defined twice.")):
        definition.define("key", ConfigType.INT)


def test_password_values_parse_to_a_password_that_prints_hidden() -> None:
    parsed = single_key(ConfigType.PASSWORD).parse({"key": "s3cret"})["key"]
    assert isinstance(parsed, Password)
    assert parsed.value == "s3cret"
    assert str(parsed) == repr(parsed) == "[hidden]"


def test_a_password_error_does_not_show_the_secret() -> None:
    definition = ConfigDef().define("secret", ConfigType.PASSWORD, validator=ValidString.in_("only-this"))
    with pytest.raises(ConfigError) as raised:
        definition.parse({"secret": "hunter2"})
    assert "hunter2" not in str(raised.value)
    assert "[hidden]" in str(raised.value)


def test_class_values_resolve_python_paths() -> None:
    parsed = single_key(ConfigType.CLASS).parse({"key": "conveyor.api.config:ConfigDef"})
    assert parsed == {"key": ConfigDef}


def test_an_unknown_class_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=re.escape("Class no.such.Thing could not be found.")):
        single_key(ConfigType.CLASS).parse({"key": "no.such.Thing"})


def test_merge_keeps_both_definitions_and_the_other_wins_on_a_shared_name() -> None:
    framework = ConfigDef().define("a", ConfigType.INT, default=1).define("shared", ConfigType.INT, default=1)
    connector = ConfigDef().define("b", ConfigType.INT, default=2).define("shared", ConfigType.INT, default=3)
    merged = framework.merge(connector)
    assert merged.names() == {"a", "b", "shared"}
    assert merged.parse({}) == {"a": 1, "shared": 3, "b": 2}
    assert framework.names() == {"a", "shared"}
