"""Which `ssl.*` keys a listener uses, and the TLS settings a worker refuses at startup."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from conveyor.api.config import Password
from conveyor.errors import ConfigError
from conveyor.rest.tls import client_ssl_context, server_ssl_context
from conveyor.settings.ssl_config import ClientAuth, SslConfig
from conveyor.settings.worker_config import WorkerConfig

from .certificates import KEY_PASSWORD, STORE_PASSWORD
from .conftest import Pki


def parse(tmp_path: Path, **props: str) -> WorkerConfig:
    return WorkerConfig.from_props({"data.dir": str(tmp_path), **props})


def test_without_prefixed_keys_a_listener_uses_the_unprefixed_ssl_keys(tmp_path: Path) -> None:
    config = parse(tmp_path, **{"ssl.keystore.location": "/etc/worker.p12", "ssl.client.auth": "required"})
    assert config.rest_ssl.keystore_location == "/etc/worker.p12"
    assert config.rest_ssl.client_auth is ClientAuth.REQUIRED
    assert config.admin_ssl == config.rest_ssl


def test_one_prefixed_key_makes_the_listener_use_the_prefixed_set_only(tmp_path: Path) -> None:
    props = {
        "ssl.keystore.location": "/etc/worker.p12",
        "ssl.client.auth": "required",
        "listeners.https.ssl.keystore.location": "/etc/rest.p12",
    }
    config = parse(tmp_path, **props)
    assert config.rest_ssl.keystore_location == "/etc/rest.p12"
    assert config.rest_ssl.client_auth is ClientAuth.NONE
    assert config.admin_ssl.keystore_location == "/etc/worker.p12"


def test_admin_listeners_have_a_prefixed_set_of_their_own(tmp_path: Path) -> None:
    config = parse(tmp_path, **{"admin.listeners.https.ssl.keystore.location": "/etc/admin.p12"})
    assert config.admin_ssl.keystore_location == "/etc/admin.p12"
    assert config.rest_ssl.keystore_location is None


def test_ssl_client_auth_takes_only_none_requested_or_required(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"ssl\.client\.auth"):
        parse(tmp_path, **{"ssl.client.auth": "sometimes"})


def test_ssl_keys_are_known_worker_properties(tmp_path: Path) -> None:
    config = parse(tmp_path, **{"listeners.https.ssl.keystore.password": "x", "ssl.truststore.type": "PEM"})
    assert config.warnings == ()


def test_passwords_print_hidden(tmp_path: Path) -> None:
    config = parse(tmp_path, **{"ssl.keystore.password": "do-not-print"})
    assert "do-not-print" not in repr(config.rest_ssl)


def test_an_https_listener_without_a_key_store_is_refused() -> None:
    with pytest.raises(ConfigError, match="needs a key store"):
        server_ssl_context(SslConfig())


def test_a_jks_key_store_is_refused_with_how_to_convert_it() -> None:
    with pytest.raises(ConfigError, match="keytool -importkeystore"):
        server_ssl_context(SslConfig(keystore_type="JKS", keystore_location="/etc/worker.jks"))


def test_a_wrong_key_store_password_is_refused_naming_the_store(pki: Pki) -> None:
    config = SslConfig(keystore_location=str(pki.server_pkcs12), keystore_password=Password("wrong"))
    with pytest.raises(ConfigError, match=r"server\.p12 cannot be read"):
        server_ssl_context(config)


def test_an_inline_pem_key_and_chain_make_a_key_store(pki: Pki) -> None:
    text = pki.server_pem.read_text()
    split = text.index("-----BEGIN CERTIFICATE-----")
    config = SslConfig(
        keystore_type="PEM",
        keystore_key=Password(text[:split]),
        keystore_certificate_chain=Password(text[split:]),
        key_password=Password(KEY_PASSWORD),
    )
    assert isinstance(server_ssl_context(config), ssl.SSLContext)


def test_a_client_context_trusts_the_pkcs12_trust_store_and_checks_host_names(pki: Pki) -> None:
    store = str(pki.ca_truststore)
    config = SslConfig(truststore_location=store, truststore_password=Password(STORE_PASSWORD))
    context = client_ssl_context(config)
    assert context.check_hostname
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert [cert["subject"] for cert in context.get_ca_certs()] == [((("commonName", "Conveyor test CA"),),)]


def test_a_jks_store_type_is_accepted_while_no_listener_is_https(tmp_path: Path) -> None:
    """Kafka workers set `ssl.*` for their broker connections too; only an https listener reads them here."""
    config = parse(tmp_path, **{"ssl.keystore.type": "JKS", "ssl.keystore.location": "/etc/kafka.jks"})
    assert config.rest_ssl.keystore_type == "JKS"
