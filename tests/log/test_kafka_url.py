"""A kafka:// URL names the brokers and carries client settings per kind of client, and a namespace."""

from __future__ import annotations

import pickle

import pytest

from conveyor.log import InvalidLogUrlError, open_log
from conveyor.log.kafka import KafkaLog, KafkaSettings


def test_settings_go_to_every_client_or_to_their_prefixed_kind() -> None:
    settings = KafkaSettings.from_url(
        "kafka://a:1,b:2?security.protocol=SSL&producer.linger.ms=7&consumer.fetch.min.bytes=3"
    )
    assert settings.client_config("producer") == {
        "enable.metrics.push": False,
        "bootstrap.servers": "a:1,b:2",
        "security.protocol": "SSL",
        "linger.ms": "7",
    }
    assert settings.client_config("consumer")["fetch.min.bytes"] == "3"
    assert settings.client_config("admin") == {
        "enable.metrics.push": False,
        "bootstrap.servers": "a:1,b:2",
        "security.protocol": "SSL",
    }


def test_clients_push_no_metrics_to_the_brokers_unless_the_url_says_so() -> None:
    settings = KafkaSettings.from_url("kafka://a:1?consumer.enable.metrics.push=true")
    assert settings.client_config("producer")["enable.metrics.push"] is False
    assert settings.client_config("consumer")["enable.metrics.push"] == "true"


def test_a_url_reads_back_as_the_same_settings() -> None:
    settings = KafkaSettings.from_url("kafka://a:1?sasl.password=p%26q&admin.x=1&namespace=team.")
    assert KafkaSettings.from_url(settings.url()) == settings
    assert settings.namespace == "team."
    assert settings.common["sasl.password"] == "p&q"


def test_a_kafka_log_opens_without_contacting_the_brokers_and_pickles_as_its_url() -> None:
    log = open_log("kafka://127.0.0.1:1?namespace=n.")
    assert isinstance(log, KafkaLog)
    assert pickle.loads(pickle.dumps(log)).url == log.url
    log.close()


@pytest.mark.parametrize("url", ["kafka://", "kafka://no-port", "kafka:a:1"])
def test_malformed_kafka_urls_are_refused_naming_the_url(url: str) -> None:
    with pytest.raises(InvalidLogUrlError, match="Log URL"):
        open_log(url)
