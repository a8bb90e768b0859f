"""Transformation chains configured from connector properties, as Kafka Connect builds them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from conveyor.api import ConfigError, Transformation
from conveyor.data import ConnectRecord, Headers
from conveyor.transforms import (
    BUILTIN_PREDICATES,
    BUILTIN_TRANSFORMS,
    Filter,
    RegexRouter,
    TransformationChain,
    resolve_builtin_plugin,
)

from .support import value_record


class ClosingTracker(Transformation[ConnectRecord]):
    """Records that it was closed; passes records through."""

    closed: list[str] = []

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.name = str(configs.get("name", "?"))

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return record

    def close(self) -> None:
        ClosingTracker.closed.append(self.name)


def test_aliases_apply_in_listed_order() -> None:
    chain = TransformationChain.from_connector_config(
        {
            "transforms": "hoist, insert",
            "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
            "transforms.hoist.field": "line",
            "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.insert.static.field": "source",
            "transforms.insert.static.value": "file",
        }
    )
    result = chain.apply(value_record(None, "hello"))
    assert result is not None
    assert result.value == {"line": "hello", "source": "file"}


def test_no_transforms_is_an_empty_chain_that_passes_records() -> None:
    chain = TransformationChain.from_connector_config({"transforms": ""})
    record = value_record(None, "x")
    assert len(chain) == 0
    assert chain.apply(record) is record


def test_predicate_limits_a_transformation_to_matching_records() -> None:
    chain = TransformationChain.from_connector_config(
        {
            "transforms": "drop",
            "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate": "isFoo",
            "predicates": "isFoo",
            "predicates.isFoo.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            "predicates.isFoo.pattern": "foo.*",
        }
    )
    assert chain.apply(value_record(None, 1, topic="foo-1")) is None
    assert chain.apply(value_record(None, 1, topic="bar")) is not None


def test_negate_inverts_the_predicate() -> None:
    chain = TransformationChain.from_connector_config(
        {
            "transforms": "drop",
            "transforms.drop.type": "Filter",
            "transforms.drop.predicate": "hasTrace",
            "transforms.drop.negate": "true",
            "predicates": "hasTrace",
            "predicates.hasTrace.type": "HasHeaderKey",
            "predicates.hasTrace.name": "trace",
        }
    )
    traced = value_record(None, 1).new_record(headers=Headers().add("trace", "t"))
    assert chain.apply(traced) is traced
    assert chain.apply(value_record(None, 1)) is None


def test_batch_keeps_order_and_drops_filtered_records() -> None:
    chain = TransformationChain.from_connector_config(
        {
            "transforms": "dropTombstones,route",
            "transforms.dropTombstones.type": "Filter",
            "transforms.dropTombstones.predicate": "tombstone",
            "transforms.route.type": "RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-out",
            "predicates": "tombstone",
            "predicates.tombstone.type": "RecordIsTombstone",
        }
    )
    records = [
        value_record(None, value, topic=f"t{index}") for index, value in enumerate([1, None, 2, None, 3])
    ]

    result = chain.apply_batch(records)

    assert [(record.topic, record.value) for record in result] == [
        ("t0-out", 1),
        ("t2-out", 2),
        ("t4-out", 3),
    ]
    assert [chain.apply(record) for record in records] == [*result[:1], None, result[1], None, result[2]]


def test_missing_type_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r'"transforms\.a\.type"') as raised:
        TransformationChain.from_connector_config({"transforms": "a"})
    assert raised.value.name == "transforms.a.type"


def test_unknown_class_names_the_key_and_value() -> None:
    with pytest.raises(
        ConfigError, match=r"Invalid value com\.example\.Nope for configuration transforms\.a\.type"
    ):
        TransformationChain.from_connector_config(
            {"transforms": "a", "transforms.a.type": "com.example.Nope"}
        )


def test_a_class_that_is_not_a_transformation_is_rejected() -> None:
    with pytest.raises(ConfigError, match="Not a Transformation"):
        TransformationChain.from_connector_config(
            {"transforms": "a", "transforms.a.type": "conveyor.transforms.TopicNameMatches"}
        )


def test_bad_transformation_setting_names_the_prefixed_key() -> None:
    with pytest.raises(ConfigError, match=r"transforms\.route\.regex") as raised:
        TransformationChain.from_connector_config(
            {
                "transforms": "route",
                "transforms.route.type": "RegexRouter",
                "transforms.route.regex": "(",
                "transforms.route.replacement": "x",
            }
        )
    assert raised.value.name == "transforms.route.regex"


def test_duplicate_aliases_are_rejected() -> None:
    with pytest.raises(ConfigError, match="Duplicate alias"):
        TransformationChain.from_connector_config({"transforms": "a,a", "transforms.a.type": "Filter"})


def test_predicate_alias_must_be_declared() -> None:
    with pytest.raises(ConfigError, match=r"transforms\.a\.predicate"):
        TransformationChain.from_connector_config(
            {
                "transforms": "a",
                "transforms.a.type": "Filter",
                "transforms.a.predicate": "undeclared",
            }
        )


def test_negate_must_be_a_boolean() -> None:
    with pytest.raises(ConfigError, match=r"transforms\.a\.negate"):
        TransformationChain.from_connector_config(
            {
                "transforms": "a",
                "transforms.a.type": "Filter",
                "transforms.a.negate": "sometimes",
            }
        )


def test_supplied_resolver_is_used_with_the_plugin_kind() -> None:
    asked: list[tuple[str, str]] = []

    def resolve(kind: str, class_name: str) -> type:
        asked.append((kind, class_name))
        return {"my.Router": RegexRouter, "my.Tomb": BUILTIN_PREDICATES["RecordIsTombstone"]}[class_name]

    TransformationChain.from_connector_config(
        {
            "transforms": "r",
            "transforms.r.type": "my.Router",
            "transforms.r.regex": "a",
            "transforms.r.replacement": "b",
            "transforms.r.predicate": "p",
            "predicates": "p",
            "predicates.p.type": "my.Tomb",
        },
        resolve,
    )
    assert asked == [("transformation", "my.Router"), ("predicate", "my.Tomb")]


def test_close_closes_every_stage() -> None:
    ClosingTracker.closed = []
    chain = TransformationChain.from_connector_config(
        {
            "transforms": "one,two",
            "transforms.one.type": "tracker",
            "transforms.one.name": "one",
            "transforms.two.type": "tracker",
            "transforms.two.name": "two",
        },
        lambda kind, name: ClosingTracker,
    )
    chain.close()
    assert ClosingTracker.closed == ["one", "two"]


def test_builtin_registries_hold_every_kafka_smt_and_predicate() -> None:
    families = [
        "Cast",
        "ExtractField",
        "Flatten",
        "HeaderFrom",
        "HoistField",
        "InsertField",
        "MaskField",
        "ReplaceField",
        "SetSchemaMetadata",
        "TimestampConverter",
    ]
    expected = {f"{family}${side}" for family in families for side in ("Key", "Value")}
    expected |= {"DropHeaders", "Filter", "InsertHeader", "RegexRouter", "TimestampRouter", "ValueToKey"}
    assert set(BUILTIN_TRANSFORMS) == expected
    assert set(BUILTIN_PREDICATES) == {"TopicNameMatches", "HasHeaderKey", "RecordIsTombstone"}


def test_builtin_resolver_maps_kafka_fully_qualified_names() -> None:
    assert resolve_builtin_plugin("transformation", "org.apache.kafka.connect.transforms.Filter") is Filter
    predicate = resolve_builtin_plugin(
        "predicate", "org.apache.kafka.connect.transforms.predicates.HasHeaderKey"
    )
    assert predicate is BUILTIN_PREDICATES["HasHeaderKey"]
