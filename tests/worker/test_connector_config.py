"""The common, source and sink connector config keys, checked against Kafka's own REST system test."""

from __future__ import annotations

from conveyor.api import ConfigDef, ConfigType, Importance, Range
from conveyor.settings.connector_config import (
    connector_config_def,
    sink_connector_config_def,
    source_connector_config_def,
)

# Kafka 4.1+ (KIP-891)
PLUGIN_VERSION_KEYS = (
    "connector.plugin.version",
    "key.converter.plugin.version",
    "value.converter.plugin.version",
    "header.converter.plugin.version",
)
# tests/kafkatest/tests/connect/connect_rest_test.py
FILE_SOURCE_CONFIGS = {
    "name",
    "connector.class",
    "tasks.max",
    "key.converter",
    "value.converter",
    "header.converter",
    *PLUGIN_VERSION_KEYS,
    "batch.size",
    "topic",
    "file",
    "transforms",
    "config.action.reload",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "errors.tolerance",
    "errors.log.enable",
    "errors.log.include.messages",
    "predicates",
    "topic.creation.groups",
    "exactly.once.support",
    "transaction.boundary",
    "transaction.boundary.interval.ms",
    "offsets.storage.topic",
    "tasks.max.enforce",
}
FILE_SINK_CONFIGS = {
    "name",
    "connector.class",
    "tasks.max",
    "key.converter",
    "value.converter",
    "header.converter",
    *PLUGIN_VERSION_KEYS,
    "topics",
    "file",
    "transforms",
    "topics.regex",
    "config.action.reload",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "errors.tolerance",
    "errors.log.enable",
    "errors.log.include.messages",
    "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable",
    "predicates",
    "tasks.max.enforce",
}

FILE_SOURCE_DEF = (
    ConfigDef()
    .define("file", ConfigType.STRING, default=None, importance=Importance.HIGH)
    .define("topic", ConfigType.LIST, importance=Importance.HIGH)
    .define(
        "batch.size", ConfigType.INT, default=2000, validator=Range.at_least(1), importance=Importance.LOW
    )
)
FILE_SINK_DEF = ConfigDef().define("file", ConfigType.STRING, default=None, importance=Importance.HIGH)


def listed_names(infos: dict[str, object]) -> set[str]:
    configs = infos["configs"]
    assert isinstance(configs, list)
    return {config["value"]["name"] for config in configs}


def test_file_source_validation_lists_exactly_the_keys_kafkas_rest_test_expects() -> None:
    definition = source_connector_config_def().merge(FILE_SOURCE_DEF)
    props = {
        "name": "local-file-source",
        "connector.class": "FileStreamSource",
        "topic": "t",
        "file": "in.txt",
    }
    infos = definition.config_infos("FileStreamSourceConnector", definition.validate(props))
    assert listed_names(infos) == FILE_SOURCE_CONFIGS
    assert infos["error_count"] == 0


def test_file_sink_validation_lists_exactly_the_keys_kafkas_rest_test_expects() -> None:
    definition = sink_connector_config_def().merge(FILE_SINK_DEF)
    props = {"name": "local-file-sink", "connector.class": "FileStreamSink", "topics": "t", "file": "out.txt"}
    infos = definition.config_infos("FileStreamSinkConnector", definition.validate(props))
    assert listed_names(infos) == FILE_SINK_CONFIGS
    assert infos["error_count"] == 0


def test_common_keys_have_kafkas_defaults() -> None:
    parsed = connector_config_def().parse({"name": "c", "connector.class": "X"})
    assert parsed == {
        "name": "c",
        "connector.class": "X",
        "tasks.max": 1,
        "tasks.max.enforce": True,
        "key.converter": None,
        "value.converter": None,
        "header.converter": None,
        **dict.fromkeys(PLUGIN_VERSION_KEYS),
        "transforms": [],
        "predicates": [],
        "config.action.reload": "restart",
        "errors.retry.timeout": 0,
        "errors.retry.delay.max.ms": 60000,
        "errors.tolerance": "none",
        "errors.log.enable": False,
        "errors.log.include.messages": False,
    }


def test_source_keys_have_kafkas_defaults() -> None:
    parsed = source_connector_config_def().parse({"name": "c", "connector.class": "X"})
    assert {key: parsed[key] for key in parsed.keys() - connector_config_def().names()} == {
        "topic.creation.groups": [],
        "exactly.once.support": "requested",
        "transaction.boundary": "poll",
        "transaction.boundary.interval.ms": None,
        "offsets.storage.topic": None,
    }


def test_sink_keys_have_kafkas_defaults() -> None:
    parsed = sink_connector_config_def().parse({"name": "c", "connector.class": "X"})
    assert {key: parsed[key] for key in parsed.keys() - connector_config_def().names()} == {
        "topics": [],
        "topics.regex": "",
        "errors.deadletterqueue.topic.name": "",
        "errors.deadletterqueue.topic.replication.factor": 3,
        "errors.deadletterqueue.context.headers.enable": False,
    }


def test_source_definition_groups_follow_kafka() -> None:
    assert source_connector_config_def().groups() == [
        "Common",
        "Transforms",
        "Predicates",
        "Error Handling",
        "Topic Creation",
        "Exactly Once Support",
        "offsets.topic",
    ]


def test_a_connector_name_is_required() -> None:
    values = {v.name: v for v in connector_config_def().validate({"connector.class": "X"})}
    assert values["name"].errors == ['Missing required configuration "name" which has no default value.']


def test_a_connector_name_may_not_contain_control_characters() -> None:
    values = {
        v.name: v for v in connector_config_def().validate({"name": "bad\tname", "connector.class": "X"})
    }
    assert values["name"].errors == [
        "Invalid value bad\tname for configuration name: "
        "String may not contain control sequences but had the following ASCII chars: 9"
    ]


def test_duplicate_transform_aliases_are_rejected() -> None:
    props = {"name": "c", "connector.class": "X", "transforms": "a,b,a"}
    values = {v.name: v for v in connector_config_def().validate(props)}
    assert values["transforms"].errors == [
        "Invalid value a,b,a for configuration transforms: Duplicate alias provided."
    ]


def test_exactly_once_support_accepts_any_case_and_rejects_other_values() -> None:
    base = {"name": "c", "connector.class": "X"}
    assert (
        source_connector_config_def().parse({**base, "exactly.once.support": "REQUIRED"})[
            "exactly.once.support"
        ]
        == "REQUIRED"
    )
    values = {
        v.name: v for v in source_connector_config_def().validate({**base, "exactly.once.support": "maybe"})
    }
    assert values["exactly.once.support"].errors == [
        "Invalid value maybe for configuration exactly.once.support: "
        "String must be one of (case insensitive): requested, required"
    ]


def test_transaction_boundary_interval_may_be_unset_but_not_negative() -> None:
    base = {"name": "c", "connector.class": "X"}
    values = {
        v.name: v
        for v in source_connector_config_def().validate({**base, "transaction.boundary.interval.ms": "-1"})
    }
    assert values["transaction.boundary.interval.ms"].errors == [
        "Invalid value -1 for configuration transaction.boundary.interval.ms: Value must be at least 0"
    ]


def test_an_invalid_topics_regex_is_rejected() -> None:
    props = {"name": "c", "connector.class": "X", "topics.regex": "("}
    values = {v.name: v for v in sink_connector_config_def().validate(props)}
    assert len(values["topics.regex"].errors) == 1
    assert values["topics.regex"].errors[0].startswith("Invalid value ( for configuration topics.regex:")
