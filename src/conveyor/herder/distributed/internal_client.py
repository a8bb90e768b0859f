"""Requests one worker makes of another: task configs and zombie fencing sent to the leader, and a
peer's view of its tasks' metrics and usage, all signed.

A follower whose connector generated new task configs cannot write them (only the leader writes the
config topic), so it posts them to the leader; before an exactly-once source task starts, its worker
asks the leader to fence the connector's older task producers. Both carry Kafka's KIP-507 signature.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from conveyor.errors import ConnectError
from conveyor.herder.distributed.request_signature import signature_headers
from conveyor.storage.config_records import SessionKey

REQUEST_TIMEOUT_S = 90.0
"""Kafka's `DEFAULT_REST_REQUEST_TIMEOUT_MS`."""


class InternalRequestError(ConnectError):
    """Another worker refused or failed an internal request; the message is its error body's."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class InternalClient:
    """Signs with the current session key when there is one (the group may not sign: eager/compatible)."""

    def __init__(
        self,
        session_key: Callable[[], SessionKey | None],
        signature_algorithm: str,
        timeout_s: float = REQUEST_TIMEOUT_S,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        self._session_key = session_key
        self._algorithm = signature_algorithm
        self._timeout_s = timeout_s
        self._verify = verify

    def put_task_configs(self, leader_url: str, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """`POST /connectors/{c}/tasks` on the leader (Kafka's internal task config request)."""
        self._request("POST", leader_url, f"/connectors/{quote(connector, safe='')}/tasks", list(configs))

    def fence_zombies(self, leader_url: str, connector: str) -> None:
        """`PUT /connectors/{c}/fence` on the leader (KIP-618)."""
        self._request("PUT", leader_url, f"/connectors/{quote(connector, safe='')}/fence", None)

    def worker_view(self, peer_url: str, timeout_s: float) -> Any:
        """`GET /conveyor/internal/worker` on a peer: its tasks' metrics and its usage, waited for
        `timeout_s` at most."""
        return self._request("GET", peer_url, "/conveyor/internal/worker", None, timeout_s).json()

    def _request(
        self, method: str, base_url: str, path: str, body: Any, timeout_s: float | None = None
    ) -> httpx.Response:
        content = b"" if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        key = self._session_key()
        if key is not None:
            headers.update(signature_headers(key, content, self._algorithm))
        url = base_url.rstrip("/") + path
        try:
            response = httpx.request(
                method,
                url,
                content=content,
                headers=headers,
                params={"forward": "true"},
                timeout=self._timeout_s if timeout_s is None else timeout_s,
                verify=self._verify,
            )
        except httpx.HTTPError as error:
            raise InternalRequestError(f"{method} {url} failed: {error}") from error
        if response.status_code >= 300:
            raise InternalRequestError(_error_message(response), response.status_code)
        return response


def _error_message(response: httpx.Response) -> str:
    try:
        return str(response.json()["message"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}: {response.text[:200]}"
