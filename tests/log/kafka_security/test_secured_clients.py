"""The Kafka backend reaches a secured cluster with the settings a Kafka Connect worker is given: its
producers, consumers, admin client and the group membership it speaks itself, over SASL, TLS or both."""

from __future__ import annotations

import uuid
from urllib.parse import quote

import pytest
from tests.log.kafka_security.conftest import PASSWORD, USER, SecuredBroker

from conveyor.log import Log, LogError, open_log

PLAIN_JAAS = (
    f'org.apache.kafka.common.security.plain.PlainLoginModule required username="{USER}" password="{{}}";'
)
SCRAM_JAAS = (
    f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{USER}" password="{{}}";'
)


def kafka_url(servers: str, **settings: str) -> str:
    query = "&".join(f"{key}={quote(value, safe='')}" for key, value in settings.items())
    return f"kafka://{servers}?{query}&namespace=s{uuid.uuid4().hex[:8]}."


def sasl_settings(mechanism: str, password: str = PASSWORD) -> dict[str, str]:
    jaas = PLAIN_JAAS if mechanism == "PLAIN" else SCRAM_JAAS
    return {"sasl.mechanism": mechanism, "sasl.jaas.config": jaas.format(password)}


def tls_settings(ca_bundle: object) -> dict[str, str]:
    return {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(ca_bundle)}


def produce_and_read_back(log: Log) -> list[bytes | None]:
    log.admin().create_topic("secured", partitions=1)
    with log.producer() as producer:
        producer.send("secured", b"hello", key=b"k")
        producer.flush()
    consumer = log.consumer(group_id="readers", auto_offset_reset="earliest")
    try:
        consumer.subscribe(["secured"])
        values: list[bytes | None] = []
        for _ in range(100):
            values += [record.value for record in consumer.poll(timeout=0.2)]
            if values:
                return values
        return values
    finally:
        consumer.close()


def join_alone(log: Log) -> int:
    """Join a `connect` group as its only member; the generation the coordinator gave."""
    coordinator = log.group_coordinator()
    joined = coordinator.join_group("workers", None, "connect", [("sessioned", b"meta")], 10_000, 5_000)
    assignment = coordinator.sync_group(
        "workers", joined.generation, joined.member_id, {joined.member_id: b"a"}
    )
    assert assignment == b"a"
    coordinator.leave_group("workers", joined.member_id)
    return joined.generation


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_a_worker_joins_its_group_over_sasl(secured_broker: SecuredBroker, mechanism: str) -> None:
    url = kafka_url(
        secured_broker.sasl, **{"security.protocol": "SASL_PLAINTEXT"}, **sasl_settings(mechanism)
    )
    with open_log(url) as log:
        assert join_alone(log) >= 1


def test_records_travel_over_sasl_with_a_kafka_connect_jaas_config(secured_broker: SecuredBroker) -> None:
    url = kafka_url(
        secured_broker.sasl, **{"security.protocol": "SASL_PLAINTEXT"}, **sasl_settings("SCRAM-SHA-256")
    )
    with open_log(url) as log:
        assert produce_and_read_back(log) == [b"hello"]


def test_a_wrong_password_fails_group_membership_with_an_authentication_error(
    secured_broker: SecuredBroker,
) -> None:
    url = kafka_url(
        secured_broker.sasl, **{"security.protocol": "SASL_PLAINTEXT"}, **sasl_settings("PLAIN", "wrong")
    )
    with open_log(url) as log, pytest.raises(LogError, match="authentication of 'alice' failed"):
        join_alone(log)


def test_a_worker_joins_its_group_and_moves_records_over_tls(secured_broker: SecuredBroker) -> None:
    url = kafka_url(
        secured_broker.tls, **{"security.protocol": "SSL"}, **tls_settings(secured_broker.ca_bundle)
    )
    with open_log(url) as log:
        assert join_alone(log) >= 1
        assert produce_and_read_back(log) == [b"hello"]


def test_a_broker_certificate_from_an_untrusted_ca_is_refused(secured_broker: SecuredBroker) -> None:
    url = kafka_url(
        secured_broker.tls, **{"security.protocol": "SSL"}, **tls_settings(secured_broker.stranger_ca_bundle)
    )
    with open_log(url) as log, pytest.raises(LogError, match="certificate verify failed"):
        join_alone(log)


def test_a_worker_joins_its_group_over_sasl_inside_tls(secured_broker: SecuredBroker) -> None:
    url = kafka_url(
        secured_broker.sasl_tls,
        **{"security.protocol": "SASL_SSL"},
        **sasl_settings("SCRAM-SHA-512"),
        **tls_settings(secured_broker.ca_bundle),
    )
    with open_log(url) as log:
        assert join_alone(log) >= 1
