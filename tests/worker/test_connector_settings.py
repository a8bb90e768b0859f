"""The runtime reads a connector config's framework keys through their definitions: typed, with the
defaults written once, and a bad value named as Kafka's ConfigException names it."""

from __future__ import annotations

import pytest

from conveyor.api import ConfigError, TransactionBoundary
from conveyor.pipeline.error_handling import ErrorPolicy
from conveyor.settings.connector_config import SinkTopics, SourceTransactionSettings, TaskCount


def test_an_empty_config_takes_the_definitions_defaults() -> None:
    assert TaskCount.parse({}) == TaskCount(tasks_max=1, enforce=True)
    assert ErrorPolicy.from_connector_config({}) == ErrorPolicy(False, 0, 60000, False, False, "", False)
    assert SourceTransactionSettings.parse({}) == SourceTransactionSettings(
        False, TransactionBoundary.POLL, None, None
    )


def test_an_error_policy_built_without_arguments_has_the_definitions_defaults() -> None:
    assert ErrorPolicy() == ErrorPolicy.from_connector_config({})


def test_values_are_typed() -> None:
    settings = ErrorPolicy.from_connector_config(
        {"errors.tolerance": "all", "errors.log.enable": "TRUE", "errors.retry.timeout": "5"}
    )
    assert settings.tolerance_all is True
    assert settings.log_enable is True
    assert settings.retry_timeout_ms == 5


def test_a_bad_error_tolerance_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as raised:
        ErrorPolicy.from_connector_config({"errors.tolerance": "some"})
    assert raised.value.name == "errors.tolerance"
    assert str(raised.value).startswith("Invalid value some for configuration errors.tolerance:")


def test_sink_topics_are_trimmed_and_exactly_one_kind_is_required() -> None:
    assert SinkTopics.parse({"topics": " a , b "}).require_exactly_one() == SinkTopics(("a", "b"), None)
    assert SinkTopics.parse({"topics.regex": "logs-.*"}).regex == "logs-.*"
    with pytest.raises(ConfigError, match=r"topics and topics\.regex are mutually exclusive"):
        SinkTopics.parse({"topics": "a", "topics.regex": "b.*"}).require_exactly_one()


def test_a_transaction_boundary_interval_is_a_long_or_unset() -> None:
    settings = SourceTransactionSettings.parse(
        {"transaction.boundary": "Interval", "transaction.boundary.interval.ms": "250"}
    )
    assert settings.boundary is TransactionBoundary.INTERVAL
    assert settings.boundary_interval_ms == 250


def test_sink_topics_answer_kafkas_messages_when_both_or_neither_key_is_set() -> None:
    assert SinkTopics.parse({"topics": "a", "topics.regex": "a.*"}).problem == (
        "topics and topics.regex are mutually exclusive options, but both are set."
    )
    assert SinkTopics.parse({}).problem == "Must configure one of topics or topics.regex"
    assert SinkTopics.parse({"topics": "a"}).problem is None


def test_sink_topics_include_a_listed_topic_and_one_the_regex_matches_whole() -> None:
    assert SinkTopics.parse({"topics": "a,b"}).includes("b")
    assert SinkTopics.parse({"topics.regex": "orders-.*"}).includes("orders-eu")
    assert not SinkTopics.parse({"topics.regex": "orders"}).includes("orders-eu")
