"""Certificates made for a test: a CA, a server certificate for 127.0.0.1 and localhost, client certificates.

Each is written in the formats a worker reads: PEM (key and chain in one file) and PKCS12.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    pkcs12,
)
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

STORE_PASSWORD = "store-secret"
KEY_PASSWORD = "key-secret"


@dataclass(frozen=True)
class Identity:
    """A private key and its certificate, signed by `issuer` (itself for a CA)."""

    key: ec.EllipticCurvePrivateKey
    certificate: x509.Certificate

    def write_pem(self, path: Path, *, key_password: str | None = None) -> Path:
        """The key (encrypted under `key_password` if given) and certificate in one PEM file."""
        encryption = BestAvailableEncryption(key_password.encode()) if key_password else NoEncryption()
        key = self.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, encryption)
        path.write_bytes(key + self.certificate.public_bytes(Encoding.PEM))
        return path

    def write_pkcs12(self, path: Path, password: str = STORE_PASSWORD) -> Path:
        encryption = BestAvailableEncryption(password.encode())
        store = pkcs12.serialize_key_and_certificates(b"rest", self.key, self.certificate, None, encryption)
        path.write_bytes(store)
        return path

    def write_certificate(self, path: Path) -> Path:
        """The certificate alone, as a PEM CA bundle."""
        path.write_bytes(self.certificate.public_bytes(Encoding.PEM))
        return path

    def write_pkcs12_truststore(self, path: Path, password: str = STORE_PASSWORD) -> Path:
        """The certificate alone, as a PKCS12 trust store."""
        encryption = BestAvailableEncryption(password.encode())
        store = pkcs12.serialize_key_and_certificates(None, None, None, [self.certificate], encryption)
        path.write_bytes(store)
        return path


def certificate_authority(name: str) -> Identity:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    certificate = (
        _builder(subject, subject, key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return Identity(key, certificate)


def server_identity(ca: Identity) -> Identity:
    """A worker's certificate for a listener on 127.0.0.1 or localhost, and to show other workers."""
    names = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    usages = (ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH)
    return _issue(ca, "conveyor-worker", names, *usages)


def client_identity(ca: Identity, name: str = "rest-client") -> Identity:
    return _issue(ca, name, None, ExtendedKeyUsageOID.CLIENT_AUTH)


def _issue(
    ca: Identity, name: str, names: x509.SubjectAlternativeName | None, *usages: x509.ObjectIdentifier
) -> Identity:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    builder = (
        _builder(subject, ca.certificate.subject, key)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(list(usages)), critical=False)
    )
    if names is not None:
        builder = builder.add_extension(names, critical=False)
    return Identity(key, builder.sign(ca.key, hashes.SHA256()))


def _builder(
    subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePrivateKey
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
    )
