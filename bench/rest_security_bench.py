"""Milliseconds per REST request through TLS and basic authentication, beside the same plain request.

Run: ``.venv/bin/python bench/rest_security_bench.py``. One process serves a small endpoint on an http
and an https listener, behind the basic-auth filter or not; each figure is the best of a few
repetitions of many keep-alive requests, all measured in the same run. A new TLS connection per
request and a bcrypt check per request (what the filter's digest cache avoids) are measured too.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bcrypt
import httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from cryptography.x509.oid import NameOID
from fastapi import FastAPI

from conveyor.rest import RestServer
from conveyor.rest.basic_auth import Credentials, verify_password
from conveyor.rest.basic_auth.extension import BasicAuthFilter
from conveyor.rest.extensions import RequestFilterMiddleware
from conveyor.rest.tls import server_ssl_context
from conveyor.settings.ssl_config import PEM, SslConfig

REPEATS = 5
REQUESTS = 200
PASSWORD = "s3cret"
BCRYPT_HASH = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds=12)).decode()


def app(*, authenticated: bool) -> FastAPI:
    served = FastAPI()

    @served.get("/connectors")
    def connectors() -> list[str]:
        return ["orders", "payments"]

    if authenticated:
        credentials = Credentials({"plain": PASSWORD, "hashed": "{bcrypt}" + BCRYPT_HASH})
        served.add_middleware(RequestFilterMiddleware, filters=[BasicAuthFilter(credentials)])
    return served


def self_signed(folder: Path) -> Path:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    loopback = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(loopback, critical=False)
        .sign(key, hashes.SHA256())
    )
    path = folder / "worker.pem"
    key_pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    path.write_bytes(key_pem + certificate.public_bytes(Encoding.PEM))
    return path


def best_ms_per_request(send: Callable[[], Any], requests: int = REQUESTS) -> float:
    timings = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(requests):
            send()
        timings.append((time.perf_counter() - start) * 1000 / requests)
    return min(timings)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        pem = self_signed(Path(folder))
        context = server_ssl_context(SslConfig(keystore_type=PEM, keystore_location=str(pem)))
        trusting = ssl.create_default_context(cafile=str(pem))
        listeners = "http://127.0.0.1:0,https://127.0.0.1:0"
        with (
            RestServer(app(authenticated=False), listeners, ssl_context=context) as open_server,
            RestServer(app(authenticated=True), listeners, ssl_context=context) as auth_server,
        ):
            plain_url, tls_url = open_server.urls
            auth_url, auth_tls_url = auth_server.urls
            cases: list[tuple[str, str, tuple[str, str] | None]] = [
                ("http, no auth (baseline)", plain_url, None),
                ("https, no auth", tls_url, None),
                ("http, basic auth, plain password", auth_url, ("plain", PASSWORD)),
                ("http, basic auth, bcrypt (cached)", auth_url, ("hashed", PASSWORD)),
                ("https, basic auth, bcrypt (cached)", auth_tls_url, ("hashed", PASSWORD)),
            ]
            print(f"{'keep-alive requests':>36} {'ms/request':>11}")
            for label, url, auth in cases:
                with httpx.Client(base_url=url, verify=trusting, auth=auth) as client:
                    client.get("/connectors").raise_for_status()
                    ms = best_ms_per_request(lambda c=client: c.get("/connectors").raise_for_status())
                print(f"{label:>36} {ms:11.3f}")

            def new_tls_connection() -> None:
                httpx.get(f"{tls_url}/connectors", verify=trusting).raise_for_status()

            def new_plain_connection() -> None:
                httpx.get(f"{plain_url}/connectors").raise_for_status()

            print(f"{'a new connection per request':>36} {'ms/request':>11}")
            print(f"{'http (baseline)':>36} {best_ms_per_request(new_plain_connection, 50):11.3f}")
            print(f"{'https (TLS handshake)':>36} {best_ms_per_request(new_tls_connection, 50):11.3f}")
        bcrypt_ms = best_ms_per_request(lambda: verify_password(PASSWORD, BCRYPT_HASH), 5)
        print(f"{'one bcrypt check (cost 12), uncached':>36} {bcrypt_ms:11.3f}")


if __name__ == "__main__":
    main()
