"""A test CA and its certificates in files, and real standalone workers started from worker properties."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from .certificates import (
    KEY_PASSWORD,
    STORE_PASSWORD,
    certificate_authority,
    client_identity,
    server_identity,
)


@dataclass(frozen=True)
class Pki:
    """Files of a CA, the worker's certificate, a client the CA signed and one another CA signed."""

    ca_bundle: Path
    ca_truststore: Path
    server_pem: Path
    server_pkcs12: Path
    client_pem: Path
    stranger_pem: Path

    def keystore_props(self, prefix: str = "listeners.https.") -> dict[str, str]:
        """A PKCS12 key store, the client CA's PKCS12 trust store, under `prefix`."""
        return {
            f"{prefix}ssl.keystore.type": "PKCS12",
            f"{prefix}ssl.keystore.location": str(self.server_pkcs12),
            f"{prefix}ssl.keystore.password": STORE_PASSWORD,
            f"{prefix}ssl.truststore.type": "PKCS12",
            f"{prefix}ssl.truststore.location": str(self.ca_truststore),
            f"{prefix}ssl.truststore.password": STORE_PASSWORD,
        }


@pytest.fixture(scope="package")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    ca = certificate_authority("Conveyor test CA")
    stranger_ca = certificate_authority("Another CA")
    server = server_identity(ca)
    return Pki(
        ca_bundle=ca.write_certificate(folder / "ca.pem"),
        ca_truststore=ca.write_pkcs12_truststore(folder / "truststore.p12"),
        server_pem=server.write_pem(folder / "server.pem", key_password=KEY_PASSWORD),
        server_pkcs12=server.write_pkcs12(folder / "server.p12"),
        client_pem=client_identity(ca).write_pem(folder / "client.pem"),
        stranger_pem=client_identity(stranger_ca, "stranger").write_pem(folder / "stranger.pem"),
    )
