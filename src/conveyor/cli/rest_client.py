"""The REST client the operator commands use: Kafka Connect's public API of any worker, nothing else."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from conveyor.errors import ConnectError

DEFAULT_URL = "http://localhost:8083"
"""Kafka Connect's default listener."""


class WorkerUnreachable(ConnectError):
    """No answer from the worker's REST API."""


class RestError(ConnectError):
    """The worker answered with an error status and Kafka Connect's error body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _path(*segments: str) -> str:
    return "/" + "/".join(quote(segment, safe="") for segment in segments)


class ConnectRestClient:
    """Calls one worker's REST API; errors become `RestError` or `WorkerUnreachable`."""

    def __init__(self, url: str, timeout_s: float = 60.0, http: httpx.Client | None = None) -> None:
        """`http` carries credentials and TLS settings when the worker asks for them."""
        self.url = url.rstrip("/")
        self._http = http or httpx.Client(base_url=self.url, timeout=timeout_s)

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except (httpx.TransportError, httpx.InvalidURL, httpx.UnsupportedProtocol) as error:
            raise WorkerUnreachable(f"Cannot reach the worker at {self.url}: {error}") from error
        if response.status_code >= 400:
            raise RestError(response.status_code, _error_message(response))
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._call(method, path, **kwargs)
        return response.json() if response.content else None

    def connectors(self) -> dict[str, Any]:
        """The connectors with their status and info (`?expand=status&expand=info`), as listed once.

        A worker leaves out of that listing a connector whose status it has not read yet, as Kafka
        Connect does; `every_connector` waits for those.
        """
        expand = [("expand", "status"), ("expand", "info")]
        body: dict[str, Any] = self._json("GET", "/connectors", params=expand)
        return body

    def every_connector(self, settle_s: float = 15.0) -> dict[str, Any]:
        """`connectors()` once it holds every connector the worker lists, asked again for `settle_s` at
        most, for callers that must not take a connector for absent (a plan that creates or prunes).

        Raises `ConnectError` naming the connectors still left out after that.
        """
        deadline = time.monotonic() + settle_s
        while True:
            body = self.connectors()
            names: list[str] = self._json("GET", "/connectors")
            unexpanded = sorted(set(names) - set(body))
            if not unexpanded:
                return body
            if time.monotonic() > deadline:
                raise ConnectError(
                    f"The worker at {self.url} lists {', '.join(unexpanded)} but has not shown its status "
                    f"for {settle_s:.0f} s; try again once `GET /connectors/<name>/status` answers"
                )
            time.sleep(0.2)

    def status(self, name: str) -> dict[str, Any]:
        body: dict[str, Any] = self._json("GET", _path("connectors", name, "status"))
        return body

    def create(
        self,
        name: str,
        config: dict[str, str],
        initial_state: str | None = None,
        initial_offsets: list[dict[str, Any]] | None = None,
        resume_offsets: bool = False,
    ) -> dict[str, Any]:
        """Create a connector, in ``initial_state`` (KIP-980) and at ``initial_offsets`` (KIP-995);
        ``resume_offsets`` carries on from the offsets a deleted namesake left (reset otherwise)."""
        request: dict[str, Any] = {"name": name, "config": config}
        if initial_state is not None:
            request["initial_state"] = initial_state
        if initial_offsets is not None:
            request["initial_offsets"] = initial_offsets
        params = {"resume_offsets": "true"} if resume_offsets else None
        body: dict[str, Any] = self._json("POST", "/connectors", json=request, params=params)
        return body

    def exists(self, name: str) -> bool:
        try:
            self._call("GET", _path("connectors", name))
        except RestError as error:
            if error.status == 404:
                return False
            raise
        return True

    def config(self, name: str) -> dict[str, str]:
        body: dict[str, str] = self._json("GET", _path("connectors", name, "config"))
        return body

    def put_config(self, name: str, config: dict[str, str]) -> dict[str, Any]:
        body: dict[str, Any] = self._json("PUT", _path("connectors", name, "config"), json=config)
        return body

    def validate(self, config: Mapping[str, str]) -> dict[str, Any]:
        """``PUT /connector-plugins/{class}/config/validate``: each key's definition, value and errors."""
        plugin = config.get("connector.class", "")
        body: dict[str, Any] = self._json(
            "PUT", _path("connector-plugins", plugin, "config", "validate"), json=dict(config)
        )
        return body

    def pause(self, name: str) -> None:
        self._call("PUT", _path("connectors", name, "pause"))

    def resume(self, name: str) -> None:
        self._call("PUT", _path("connectors", name, "resume"))

    def stop(self, name: str) -> None:
        self._call("PUT", _path("connectors", name, "stop"))

    def delete(self, name: str) -> None:
        self._call("DELETE", _path("connectors", name))

    def restart(self, name: str, include_tasks: bool, only_failed: bool) -> dict[str, Any] | None:
        """KIP-745's restart; the status of what is restarting (None for the legacy connector-only 204)."""
        params = {"includeTasks": str(include_tasks).lower(), "onlyFailed": str(only_failed).lower()}
        body: dict[str, Any] | None = self._json("POST", _path("connectors", name, "restart"), params=params)
        return body

    def offsets(self, name: str) -> list[dict[str, Any]]:
        body: dict[str, Any] = self._json("GET", _path("connectors", name, "offsets"))
        offsets: list[dict[str, Any]] = body["offsets"]
        return offsets

    def alter_offsets(self, name: str, offsets: list[dict[str, Any]]) -> str:
        body: dict[str, Any] = self._json(
            "PATCH", _path("connectors", name, "offsets"), json={"offsets": offsets}
        )
        return str(body.get("message", ""))

    def reset_offsets(self, name: str) -> str:
        body: dict[str, Any] = self._json("DELETE", _path("connectors", name, "offsets"))
        return str(body.get("message", ""))

    def plugins(self, connectors_only: bool) -> list[dict[str, Any]]:
        body: list[dict[str, Any]] = self._json(
            "GET", "/connector-plugins", params={"connectorsOnly": str(connectors_only).lower()}
        )
        return body


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])
    return f"{response.status_code} {response.reason_phrase}"
