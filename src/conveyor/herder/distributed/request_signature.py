"""Signing and checking internal requests between workers with the session key (KIP-507).

A worker signs the body of each internal request with an HMAC of the current session key and sends the
signature (base64) and its algorithm in two headers, as Kafka's ``InternalRequestSignature`` does. The
receiver refuses the request as Kafka's ``DistributedHerder.requestNotSignedProperly`` does: 400 when the
signature is missing or its algorithm is not one it verifies, 503 before it has read a session key, and
403 when the signature does not match.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from conveyor.errors import BadRequestError, ForbiddenError, NotReadyError
from conveyor.settings.mac_algorithms import HMAC_DIGESTS
from conveyor.storage.config_records import SessionKey

SIGNATURE_HEADER = "X-Connect-Authorization"
SIGNATURE_ALGORITHM_HEADER = "X-Connect-Request-Signature-Algorithm"


def sign(key: bytes, body: bytes, algorithm: str) -> bytes:
    """The HMAC of ``body`` under ``key`` with ``algorithm`` (a JVM name such as ``HmacSHA256``)."""
    digest = HMAC_DIGESTS.get(algorithm)
    if digest is None:
        raise ValueError(
            f"Unsupported signature algorithm {algorithm!r}: expected one of {list(HMAC_DIGESTS)}"
        )
    return hmac.new(key, body, digest).digest()


def signature_headers(session_key: SessionKey, body: bytes, algorithm: str) -> dict[str, str]:
    """The two headers that sign an internal request carrying ``body`` (Kafka's ``addToRequest``)."""
    signature = sign(session_key.key, body, algorithm)
    return {
        SIGNATURE_HEADER: base64.b64encode(signature).decode("ascii"),
        SIGNATURE_ALGORITHM_HEADER: algorithm,
    }


@dataclass(frozen=True)
class RequestSignature:
    """The signature an internal request arrived with, and the body it claims to sign."""

    algorithm: str
    signature: bytes = field(repr=False)
    body: bytes = field(repr=False)

    @classmethod
    def from_headers(cls, body: bytes, headers: Mapping[str, str]) -> RequestSignature | None:
        """The request's signature, None if either header is missing (``headers`` must match case-blind).

        An algorithm this worker cannot compute or a signature that is not base64 is a bad request, as
        in Kafka.
        """
        algorithm = headers.get(SIGNATURE_ALGORITHM_HEADER)
        encoded = headers.get(SIGNATURE_HEADER)
        if algorithm is None or encoded is None:
            return None
        if algorithm not in HMAC_DIGESTS:
            raise BadRequestError(f"{algorithm} Mac not available")
        try:
            signature = base64.b64decode(encoded, validate=True)
        except binascii.Error as error:
            raise BadRequestError(f"Illegal base64 signature: {error}") from error
        return cls(algorithm, signature, body)

    def is_valid(self, key: bytes) -> bool:
        """Whether the signature is the body's HMAC under ``key``, compared in constant time."""
        return hmac.compare_digest(sign(key, self.body, self.algorithm), self.signature)


def verify_signature(
    signature: RequestSignature | None,
    session_key: SessionKey | None,
    verification_algorithms: Collection[str],
) -> None:
    """Raise the error Kafka answers an improperly signed internal request with; return if it is sound."""
    if signature is None:
        raise BadRequestError("Internal request missing required signature")
    if signature.algorithm not in verification_algorithms:
        raise BadRequestError(
            f"This worker does not support the '{signature.algorithm}' key signing algorithm used by other "
            f"workers. This worker is currently configured to use: {list(verification_algorithms)}. Check "
            "that all workers' configuration files permit the same set of signature algorithms, and correct "
            "any misconfigured worker and restart it."
        )
    if session_key is None:
        raise NotReadyError(
            "This worker is still starting up and has not been able to read a session key from the config "
            "topic yet"
        )
    if not signature.is_valid(session_key.key):
        raise ForbiddenError("Internal request contained invalid signature.")
