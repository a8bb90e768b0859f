"""Kafka's Java client security keys, as a worker's properties give them, in the names librdkafka reads."""

from __future__ import annotations

import base64

import pytest

from conveyor.log import InvalidConfigError
from conveyor.log.kafka.sasl import ScramClient
from conveyor.log.kafka.security import SaslCredentials, WireSecurity, jaas_options, librdkafka_settings


def test_a_jaas_config_gives_librdkafka_its_user_name_and_password() -> None:
    settings = librdkafka_settings(
        {
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
            'username="alice" password="se\\"cret";',
        }
    )
    assert settings == {
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "alice",
        "sasl.password": 'se"cret',
    }


def test_a_jaas_config_that_names_no_login_module_is_refused() -> None:
    with pytest.raises(InvalidConfigError, match="login module"):
        jaas_options('username="alice" password="secret";')


def test_a_pem_trust_store_becomes_librdkafkas_ca_location() -> None:
    settings = librdkafka_settings({"ssl.truststore.type": "PEM", "ssl.truststore.location": "/ca.pem"})
    assert settings == {"ssl.ca.location": "/ca.pem"}


def test_a_pem_key_store_gives_librdkafka_its_certificate_and_key() -> None:
    settings = librdkafka_settings({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/client.pem"})
    assert settings == {"ssl.certificate.location": "/client.pem", "ssl.key.location": "/client.pem"}


def test_a_pkcs12_key_store_is_left_to_librdkafka() -> None:
    settings = librdkafka_settings({"ssl.keystore.location": "/client.p12", "ssl.keystore.password": "pw"})
    assert settings == {"ssl.keystore.location": "/client.p12", "ssl.keystore.password": "pw"}


def test_a_jks_trust_store_is_refused_with_what_to_do_instead() -> None:
    with pytest.raises(InvalidConfigError, match="PEM"):
        librdkafka_settings({"ssl.truststore.location": "/truststore.jks"})


def test_an_empty_endpoint_identification_algorithm_turns_host_name_checks_off() -> None:
    assert librdkafka_settings({"ssl.endpoint.identification.algorithm": ""}) == {
        "ssl.endpoint.identification.algorithm": "none"
    }


def test_java_only_keys_are_dropped() -> None:
    assert librdkafka_settings({"ssl.protocol": "TLSv1.3", "ssl.enabled.protocols": "TLSv1.3"}) == {}


def test_a_sasl_mechanism_conveyor_does_not_speak_is_named_in_the_error() -> None:
    with pytest.raises(InvalidConfigError, match="GSSAPI"):
        WireSecurity.from_settings({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"})


def test_sasl_without_credentials_says_which_keys_to_set() -> None:
    with pytest.raises(InvalidConfigError, match=r"sasl\.jaas\.config"):
        WireSecurity.from_settings({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"})


def test_the_scram_client_computes_rfc_7677s_proof_and_checks_the_servers_signature() -> None:
    """The SCRAM-SHA-256 exchange of RFC 7677, section 3."""
    server_first = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    sent: list[bytes] = []

    def step(message: bytes) -> bytes:
        sent.append(message)
        return server_first.encode() if len(sent) == 1 else b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

    client = ScramClient(SaslCredentials("SCRAM-SHA-256", "user", "pencil"), nonce="rOprNGfwEbeRWgbNEkqO")
    client.run(step)
    assert sent[0] == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    proof = sent[1].decode().rpartition(",p=")[2]
    assert base64.b64decode(proof) == base64.b64decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
