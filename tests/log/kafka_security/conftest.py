"""A broker of its own with secured listeners: SASL (PLAIN and SCRAM users), TLS, and both at once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.security.certificates import certificate_authority, server_identity

from conveyor.kafka_broker import KafkaBroker

USER, PASSWORD = "alice", "alice-secret"
_SASL_MECHANISMS = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"


@dataclass(frozen=True)
class SecuredBroker:
    sasl: str
    tls: str
    sasl_tls: str
    ca_bundle: Path
    stranger_ca_bundle: Path


def _sasl_settings(listener: str) -> dict[str, str]:
    prefix = f"listener.name.{listener}."
    return {
        f"{prefix}sasl.enabled.mechanisms": _SASL_MECHANISMS,
        f"{prefix}plain.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule "
        f'required user_{USER}="{PASSWORD}";',
        f"{prefix}scram-sha-256.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule "
        "required;",
        f"{prefix}scram-sha-512.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule "
        "required;",
    }


def _tls_settings(listener: str, keystore: Path) -> dict[str, str]:
    """A PEM key store with an unencrypted key: Java 17 cannot read the PBES2 encryption of PKCS#8 keys."""
    prefix = f"listener.name.{listener}."
    return {
        f"{prefix}ssl.keystore.type": "PEM",
        f"{prefix}ssl.keystore.location": str(keystore),
    }


@pytest.fixture(scope="package")
def secured_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredBroker]:
    folder = tmp_path_factory.mktemp("secured-broker")
    ca, stranger = certificate_authority("Kafka test CA"), certificate_authority("Another CA")
    keystore = server_identity(ca).write_pem(folder / "broker.pem")
    overrides = {
        "sasl.enabled.mechanisms": _SASL_MECHANISMS,
        **_sasl_settings("sasl"),
        **_sasl_settings("sasl_tls"),
        **_tls_settings("tls", keystore),
        **_tls_settings("sasl_tls", keystore),
    }
    listeners = {"SASL": "SASL_PLAINTEXT", "TLS": "SSL", "SASL_TLS": "SASL_SSL"}
    with KafkaBroker(
        folder / "broker", overrides=overrides, extra_listeners=listeners, scram_users={USER: PASSWORD}
    ) as broker:
        yield SecuredBroker(
            sasl=broker.listener_address("SASL"),
            tls=broker.listener_address("TLS"),
            sasl_tls=broker.listener_address("SASL_TLS"),
            ca_bundle=ca.write_certificate(folder / "ca.pem"),
            stranger_ca_bundle=stranger.write_certificate(folder / "stranger-ca.pem"),
        )
