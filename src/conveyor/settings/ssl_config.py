"""Kafka Connect's `ssl.*` keys for the REST API, and which of their prefixed sets a listener uses.

An HTTPS listener reads `listeners.https.ssl.*` (an admin listener `admin.listeners.https.ssl.*`) if any
key of that set is given, and otherwise the unprefixed `ssl.*` keys: all or nothing, as Kafka's
`valuesWithPrefixAllOrNothing` does, never a mix of the two.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.api.config import CaseInsensitiveValidString, ConfigDef, ConfigType, Importance, Password

LISTENERS_HTTPS_PREFIX = "listeners.https."
ADMIN_LISTENERS_HTTPS_PREFIX = "admin.listeners.https."
SSL_PREFIXES = ("", LISTENERS_HTTPS_PREFIX, ADMIN_LISTENERS_HTTPS_PREFIX)

PEM = "PEM"
PKCS12 = "PKCS12"
STORE_TYPES = (PEM, PKCS12, "JKS")


class ClientAuth(enum.StrEnum):
    """`ssl.client.auth`: whether an HTTPS listener asks REST clients for a certificate."""

    NONE = "none"
    REQUESTED = "requested"
    REQUIRED = "required"


@dataclass(frozen=True)
class SslConfig:
    """One listener's TLS settings, as Kafka's `ssl.*` keys give them (secrets stay `Password`s)."""

    keystore_type: str = PKCS12
    keystore_location: str | None = None
    keystore_password: Password | None = None
    key_password: Password | None = None
    keystore_key: Password | None = None
    keystore_certificate_chain: Password | None = None
    truststore_type: str = PKCS12
    truststore_location: str | None = None
    truststore_password: Password | None = None
    truststore_certificates: Password | None = None
    client_auth: ClientAuth = ClientAuth.NONE
    protocol: str = "TLSv1.3"
    enabled_protocols: tuple[str, ...] = ("TLSv1.2", "TLSv1.3")
    cipher_suites: tuple[str, ...] = ()
    endpoint_identification_algorithm: str = "https"

    @property
    def has_keystore(self) -> bool:
        return self.keystore_location is not None or self.keystore_key is not None


def define_ssl_keys(config_def: ConfigDef, prefix: str = "") -> ConfigDef:
    """Add the `ssl.*` keys under `prefix` (empty for the unprefixed fallbacks) to `config_def`."""
    low, medium, high = Importance.LOW, Importance.MEDIUM, Importance.HIGH
    store_type = CaseInsensitiveValidString(STORE_TYPES)
    client_auth = CaseInsensitiveValidString([c.value for c in ClientAuth])
    p = prefix + "ssl."
    return (
        config_def
        .define(f"{p}keystore.type", ConfigType.STRING, default=PKCS12, validator=store_type,
                importance=medium,
                documentation="PKCS12 or PEM (Kafka's default, JKS, cannot be read here: convert it to "
                "PKCS12 with keytool -importkeystore).")
        .define(f"{p}keystore.location", ConfigType.STRING, default=None, importance=high,
                documentation="The key store file: the listener's private key and certificate chain.")
        .define(f"{p}keystore.password", ConfigType.PASSWORD, default=None, importance=high,
                documentation="The PKCS12 key store's password.")
        .define(f"{p}key.password", ConfigType.PASSWORD, default=None, importance=high,
                documentation="The password of the private key (a PEM key store's encrypted key).")
        .define(f"{p}keystore.key", ConfigType.PASSWORD, default=None, importance=high,
                documentation="The private key itself, in PEM, with ssl.keystore.type=PEM.")
        .define(f"{p}keystore.certificate.chain", ConfigType.PASSWORD, default=None, importance=high,
                documentation="The certificate chain itself, in PEM, with ssl.keystore.type=PEM.")
        .define(f"{p}truststore.type", ConfigType.STRING, default=PKCS12, validator=store_type,
                importance=medium, documentation="PKCS12 or PEM.")
        .define(f"{p}truststore.location", ConfigType.STRING, default=None, importance=high,
                documentation="The trust store file: the certificates of the CAs whose clients are trusted.")
        .define(f"{p}truststore.password", ConfigType.PASSWORD, default=None, importance=high,
                documentation="The PKCS12 trust store's password.")
        .define(f"{p}truststore.certificates", ConfigType.PASSWORD, default=None, importance=high,
                documentation="The trusted certificates themselves, in PEM, with ssl.truststore.type=PEM.")
        .define(f"{p}client.auth", ConfigType.STRING, default=ClientAuth.NONE.value, validator=client_auth,
                importance=low, documentation="none, requested or required: whether REST clients must "
                "present a certificate the trust store trusts.")
        .define(f"{p}protocol", ConfigType.STRING, default="TLSv1.3", importance=medium,
                documentation="The TLS protocol used to reach other workers.")
        .define(f"{p}enabled.protocols", ConfigType.LIST, default=["TLSv1.2", "TLSv1.3"], importance=medium,
                documentation="The TLS versions the listener accepts.")
        .define(f"{p}cipher.suites", ConfigType.LIST, default=[], importance=low,
                documentation="The cipher suites allowed, in OpenSSL's names; all secure ones when empty.")
        .define(f"{p}endpoint.identification.algorithm", ConfigType.STRING, default="https", importance=low,
                documentation="https to check the host name of the worker reached; empty not to.")
    )  # fmt: skip


def ssl_config(parsed: Mapping[str, Any], given: Mapping[str, Any], prefix: str) -> SslConfig:
    """The settings a listener of `prefix` uses: the prefixed set if any of its keys is `given`."""
    chosen = prefix if any(key.startswith(prefix + "ssl.") for key in given) else ""
    p = chosen + "ssl."
    return SslConfig(
        keystore_type=parsed[f"{p}keystore.type"].upper(),
        keystore_location=parsed[f"{p}keystore.location"],
        keystore_password=parsed[f"{p}keystore.password"],
        key_password=parsed[f"{p}key.password"],
        keystore_key=parsed[f"{p}keystore.key"],
        keystore_certificate_chain=parsed[f"{p}keystore.certificate.chain"],
        truststore_type=parsed[f"{p}truststore.type"].upper(),
        truststore_location=parsed[f"{p}truststore.location"],
        truststore_password=parsed[f"{p}truststore.password"],
        truststore_certificates=parsed[f"{p}truststore.certificates"],
        client_auth=ClientAuth(parsed[f"{p}client.auth"].lower()),
        protocol=parsed[f"{p}protocol"],
        enabled_protocols=tuple(parsed[f"{p}enabled.protocols"]),
        cipher_suites=tuple(parsed[f"{p}cipher.suites"]),
        endpoint_identification_algorithm=parsed[f"{p}endpoint.identification.algorithm"],
    )
