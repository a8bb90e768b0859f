"""The check every internal endpoint (task configs, fencing) makes first: is the request signed (KIP-507)?

``InternalRequestVerifier`` is a FastAPI dependency that reads the request body, checks its signature
headers against the worker's current session key and hands the verified body to the endpoint. A refused
request never reaches the endpoint: it is answered 400, 403 or 503 through Conveyor's error table.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from fastapi import Request

from conveyor.herder.distributed.request_signature import RequestSignature, verify_signature
from conveyor.storage.config_records import SessionKey


def _always() -> bool:
    return True


class InternalRequestVerifier:
    """Verifies internal requests against ``session_key()``, the key the worker holds right now.

    ``validation_enabled()`` says whether the group signs its requests at all: Kafka checks signatures
    only once every member speaks the sessioned protocol, and lets every request through before that.
    """

    def __init__(
        self,
        session_key: Callable[[], SessionKey | None],
        verification_algorithms: Collection[str],
        validation_enabled: Callable[[], bool] = _always,
    ) -> None:
        self._session_key = session_key
        self._verification_algorithms = tuple(verification_algorithms)
        self._validation_enabled = validation_enabled

    def verify(self, body: bytes, headers: Mapping[str, str]) -> None:
        """Raise the error that refuses a request carrying ``body`` and ``headers``, if it must be refused."""
        if not self._validation_enabled():
            return
        signature = RequestSignature.from_headers(body, headers)
        verify_signature(signature, self._session_key(), self._verification_algorithms)

    async def __call__(self, request: Request) -> bytes:
        """The request's body, once its signature is verified (use as ``Depends(verifier)``)."""
        body = await request.body()
        self.verify(body, request.headers)
        return body
