"""TLS contexts from Kafka Connect's `ssl.*` settings: an HTTPS listener's, and a client's to reach one.

Key stores and trust stores are PKCS12 files or PEM (a file, or the PEM text itself in
`ssl.keystore.key` / `ssl.keystore.certificate.chain` / `ssl.truststore.certificates`). Python's `ssl`
loads a private key only from a file, so a key read from PKCS12 or given inline is written, encrypted
under a one-time password, to a private (0600) temporary file deleted as soon as it is loaded.
"""

from __future__ import annotations

import os
import secrets
import ssl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    PrivateFormat,
    load_pem_private_key,
    pkcs12,
)

from conveyor.api.config import Password
from conveyor.errors import ConfigError
from conveyor.settings.ssl_config import PEM, PKCS12, ClientAuth, SslConfig

_VERIFY_MODES = {
    ClientAuth.NONE: ssl.CERT_NONE,
    ClientAuth.REQUESTED: ssl.CERT_OPTIONAL,
    ClientAuth.REQUIRED: ssl.CERT_REQUIRED,
}
_TLS_VERSIONS = {
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
    "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}


def server_ssl_context(config: SslConfig) -> ssl.SSLContext:
    """The context of an HTTPS listener: its key store, and its trust store for client certificates."""
    if not config.has_keystore:
        raise ConfigError(
            "An https listener needs a key store: set ssl.keystore.location (or, with "
            "ssl.keystore.type=PEM, ssl.keystore.key and ssl.keystore.certificate.chain)"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _restrict(context, config)
    _load_keystore(context, config)
    context.verify_mode = _VERIFY_MODES[config.client_auth]
    if config.client_auth is not ClientAuth.NONE:
        _load_truststore(context, config, default_purpose=ssl.Purpose.CLIENT_AUTH)
    return context


def client_ssl_context(config: SslConfig) -> ssl.SSLContext:
    """The context to reach an HTTPS listener with: trusts its trust store, shows its key store if any."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _restrict(context, config)
    context.check_hostname = config.endpoint_identification_algorithm.lower() == "https"
    _load_truststore(context, config, default_purpose=ssl.Purpose.SERVER_AUTH)
    if config.has_keystore:
        _load_keystore(context, config)
    return context


def _restrict(context: ssl.SSLContext, config: SslConfig) -> None:
    versions = []
    for name in config.enabled_protocols:
        if name not in _TLS_VERSIONS:
            raise ConfigError("ssl.enabled.protocols", name, f"Use {' or '.join(_TLS_VERSIONS)}")
        versions.append(_TLS_VERSIONS[name])
    if versions:
        context.minimum_version = min(versions)
        context.maximum_version = max(versions)
    if config.cipher_suites:
        try:
            context.set_ciphers(":".join(config.cipher_suites))
        except ssl.SSLError as error:
            suites = ",".join(config.cipher_suites)
            raise ConfigError("ssl.cipher.suites", suites, f"No usable cipher: {error}") from error


def _load_keystore(context: ssl.SSLContext, config: SslConfig) -> None:
    kind = config.keystore_type
    source = config.keystore_location or "(inline PEM)"
    try:
        if kind == PEM and config.keystore_location is not None:
            context.load_cert_chain(config.keystore_location, password=_secret(config.key_password))
            return
        if kind == PEM:
            key, chain = _inline_pem_keystore(config)
        elif kind == PKCS12 and config.keystore_location is not None:
            key, chain = _pkcs12_keystore(config)
        else:
            raise ConfigError("ssl.keystore.type", kind, _store_type_advice("key store", kind))
        one_time_password = secrets.token_hex(32)
        pem = key.private_bytes(
            Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(one_time_password.encode())
        ).decode() + "".join(cert.public_bytes(Encoding.PEM).decode() for cert in chain)
        with _private_file(pem) as path:
            context.load_cert_chain(path, password=one_time_password)
    except ConfigError:
        raise
    except (OSError, ssl.SSLError, ValueError, TypeError) as error:
        raise ConfigError(f"The key store {source} cannot be read: {error}") from error


def _inline_pem_keystore(config: SslConfig) -> tuple[PrivateKeyTypes, list[x509.Certificate]]:
    key, chain = config.keystore_key, config.keystore_certificate_chain
    if key is None or chain is None:
        raise ConfigError("ssl.keystore.key and ssl.keystore.certificate.chain must be set together")
    private_key = load_pem_private_key(key.value.encode(), _password_bytes(config.key_password))
    return private_key, x509.load_pem_x509_certificates(chain.value.encode())


def _pkcs12_keystore(config: SslConfig) -> tuple[PrivateKeyTypes, list[x509.Certificate]]:
    assert config.keystore_location is not None
    store = pkcs12.load_pkcs12(
        Path(config.keystore_location).read_bytes(), _password_bytes(config.keystore_password)
    )
    if store.key is None or store.cert is None:
        raise ConfigError(f"The key store {config.keystore_location} holds no private key and certificate")
    return store.key, [store.cert.certificate, *(extra.certificate for extra in store.additional_certs)]


def _load_truststore(context: ssl.SSLContext, config: SslConfig, *, default_purpose: ssl.Purpose) -> None:
    kind = config.truststore_type
    try:
        if config.truststore_location is None and config.truststore_certificates is None:
            context.load_default_certs(default_purpose)
        elif kind == PEM and config.truststore_location is not None:
            context.load_verify_locations(cafile=config.truststore_location)
        elif kind == PEM and config.truststore_certificates is not None:
            context.load_verify_locations(cadata=config.truststore_certificates.value)
        elif kind == PKCS12 and config.truststore_location is not None:
            context.load_verify_locations(cadata=_pkcs12_certificates(config))
        else:
            raise ConfigError("ssl.truststore.type", kind, _store_type_advice("trust store", kind))
    except ConfigError:
        raise
    except (OSError, ssl.SSLError, ValueError, TypeError) as error:
        source = config.truststore_location or "(inline PEM)"
        raise ConfigError(f"The trust store {source} cannot be read: {error}") from error


def _pkcs12_certificates(config: SslConfig) -> str:
    assert config.truststore_location is not None
    store = pkcs12.load_pkcs12(
        Path(config.truststore_location).read_bytes(), _password_bytes(config.truststore_password)
    )
    certificates = [extra.certificate for extra in store.additional_certs]
    if store.cert is not None:
        certificates.append(store.cert.certificate)
    if not certificates:
        raise ConfigError(f"The trust store {config.truststore_location} holds no certificate")
    return "".join(cert.public_bytes(Encoding.PEM).decode() for cert in certificates)


@contextmanager
def _private_file(text: str) -> Iterator[str]:
    """A file only this user can read, holding `text`, removed on exit."""
    descriptor, path = tempfile.mkstemp(prefix="conveyor-tls-", suffix=".pem")
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(text)
        yield path
    finally:
        os.unlink(path)


def _secret(password: Password | None) -> str | None:
    return password.value if password is not None and password.value else None


def _password_bytes(password: Password | None) -> bytes | None:
    secret = _secret(password)
    return secret.encode() if secret is not None else None


def _store_type_advice(store: str, kind: str) -> str:
    if kind == "JKS":
        return f"A JKS {store} cannot be read; convert it to PKCS12 (keytool -importkeystore) or PEM"
    return f"The {store} needs a location (or, as PEM, the PEM text itself)"
