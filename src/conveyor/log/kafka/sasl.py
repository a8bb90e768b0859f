"""SASL authentication of a new connection, as Kafka's clients do it: SaslHandshake v1 names the
mechanism, then SaslAuthenticate v1 requests carry its exchange (PLAIN; SCRAM-SHA-256/512 of RFC 5802).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable

from conveyor.log.errors import LogError
from conveyor.log.kafka.security import SaslCredentials
from conveyor.log.kafka.wire import Reader, Writer

SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
_UNSUPPORTED_MECHANISM = 33

#: Sends one SaslHandshake or SaslAuthenticate request (api key, version, body) and returns the answer.
Exchange = Callable[[int, int, bytes], Reader]


class SaslAuthenticationError(LogError):
    """The broker refused the credentials (or the mechanism)."""


def authenticate(exchange: Exchange, credentials: SaslCredentials) -> None:
    """Authenticate the connection behind ``exchange``; raise ``SaslAuthenticationError`` if refused."""
    answer = exchange(SASL_HANDSHAKE, 1, Writer().string(credentials.mechanism).build())
    error_code = answer.int16()
    enabled = [answer.string() for _ in range(answer.count())]
    if error_code == _UNSUPPORTED_MECHANISM:
        raise SaslAuthenticationError(
            f"The broker does not enable SASL mechanism {credentials.mechanism} (it enables {enabled})"
        )
    if error_code:
        raise SaslAuthenticationError(f"SASL handshake failed with error {error_code}")

    def step(message: bytes) -> bytes:
        reply = exchange(SASL_AUTHENTICATE, 1, Writer().bytes_(message).build())
        code, text = reply.int16(), reply.string()
        if code:
            raise SaslAuthenticationError(
                f"SASL {credentials.mechanism} authentication of {credentials.username!r} failed: {text}"
            )
        return reply.bytes_() or b""

    if credentials.mechanism == "PLAIN":
        step(f"\0{credentials.username}\0{credentials.password}".encode())
    else:
        ScramClient(credentials).run(step)


class ScramClient:
    """The client side of SCRAM-SHA-256 or SCRAM-SHA-512 (RFC 5802, without channel binding)."""

    def __init__(self, credentials: SaslCredentials, nonce: str | None = None) -> None:
        self._hash = "sha256" if credentials.mechanism == "SCRAM-SHA-256" else "sha512"
        self._credentials = credentials
        self._nonce = nonce or secrets.token_urlsafe(24)

    def run(self, step: Callable[[bytes], bytes]) -> None:
        user = self._credentials.username.replace("=", "=3D").replace(",", "=2C")
        first_bare = f"n={user},r={self._nonce}"
        server_first = step(f"n,,{first_bare}".encode()).decode()
        fields = dict(part.split("=", 1) for part in server_first.split(","))
        if not fields.get("r", "").startswith(self._nonce):
            raise SaslAuthenticationError("The broker's SCRAM nonce does not extend this client's")
        salted = hashlib.pbkdf2_hmac(
            self._hash, self._credentials.password.encode(), base64.b64decode(fields["s"]), int(fields["i"])
        )
        final_bare = f"c=biws,r={fields['r']}"
        auth_message = f"{first_bare},{server_first},{final_bare}".encode()
        client_key = self._hmac(salted, b"Client Key")
        signature = self._hmac(hashlib.new(self._hash, client_key).digest(), auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        server_final = step(f"{final_bare},p={base64.b64encode(proof).decode()}".encode()).decode()
        expected = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        if server_final != f"v={base64.b64encode(expected).decode()}":
            raise SaslAuthenticationError(
                "The broker's SCRAM signature is wrong: it does not know the password"
            )

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()
