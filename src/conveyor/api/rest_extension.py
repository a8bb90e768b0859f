"""REST extensions (Kafka Connect's `ConnectRestExtension`): plugins that filter or add to the REST API.

A worker loads the classes named in `rest.extension.classes`, calls `configure` with the worker's
properties, then `register` with a context. Through it an extension adds request filters, which see
every request before the endpoint does and may answer it themselves (to refuse it, say), and reads
the cluster's state. `close` is called when the worker stops.

Example, a filter that wants a token::

    class TokenExtension(ConnectRestExtension):
        def configure(self, configs):
            self.token = configs["rest.token"]

        def register(self, context):
            context.register_filter(self.check)

        def check(self, request):
            if request.headers.get("authorization") != f"Bearer {self.token}":
                return RestResponse.error(401, "Token required", {"WWW-Authenticate": "Bearer"})
            return None
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.api.config import ConfigDef


@dataclass(frozen=True)
class RestRequest:
    """What a filter sees of a request: method, path, lower-cased headers, and who sent it.

    The path is percent-decoded, except a `/` or `%` inside one segment (a connector's name) stays escaped.
    """

    method: str
    path: str
    headers: Mapping[str, str]
    client_host: str | None = None
    scheme: str = "http"


@dataclass(frozen=True)
class RestResponse:
    """The answer a filter gives instead of the endpoint's: a status, a JSON body and headers."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def error(cls, status: int, message: str, headers: Mapping[str, str] | None = None) -> RestResponse:
        """An answer in Kafka Connect's error shape, `{"error_code": status, "message": message}`."""
        return cls(status, {"error_code": status, "message": message}, dict(headers or {}))


#: Returns None to let the request through, or the response that answers it instead.
RequestFilter = Callable[[RestRequest], RestResponse | None]


@dataclass(frozen=True)
class TaskHealth:
    """One task's state, as Kafka's `TaskState`."""

    task_id: int
    state: str
    worker_id: str
    trace: str | None = None


@dataclass(frozen=True)
class ConnectorHealth:
    """A connector's state and its tasks', as Kafka's `ConnectorHealth`."""

    name: str
    state: str
    worker_id: str
    type: str
    tasks: Mapping[int, TaskHealth]
    trace: str | None = None


class ConnectClusterState(ABC):
    """What an extension may read of the cluster (Kafka's `ConnectClusterState`)."""

    @abstractmethod
    def connectors(self) -> list[str]:
        """The names of the connectors deployed in the cluster."""

    @abstractmethod
    def connector_health(self, name: str) -> ConnectorHealth:
        """A connector's state and its tasks'; raises `NotFoundError` for an unknown connector."""

    @abstractmethod
    def connector_config(self, name: str) -> dict[str, str]:
        """A connector's config, as submitted (config provider variables unresolved)."""

    @abstractmethod
    def kafka_cluster_id(self) -> str:
        """The id of the cluster the worker's log belongs to."""


class ConnectRestExtensionContext(ABC):
    """What `ConnectRestExtension.register` is handed: the means to filter requests, and the cluster."""

    @abstractmethod
    def register_filter(self, request_filter: RequestFilter) -> None:
        """Run `request_filter` on every request, after the filters registered before it.

        It runs on a worker thread and may block. With CORS on, preflight requests are answered before
        any filter sees them.
        """

    @property
    @abstractmethod
    def cluster_state(self) -> ConnectClusterState: ...


class ConnectRestExtension(ABC):
    """A plugin that extends the REST API; named in `rest.extension.classes`, built with no arguments."""

    def configure(self, configs: Mapping[str, str]) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Receive the worker's properties (every key, resolved) before `register`."""

    @abstractmethod
    def register(self, context: ConnectRestExtensionContext) -> None:
        """Register the extension's filters with `context`."""

    def close(self) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Release what the extension holds; called when the worker stops."""

    def version(self) -> str:
        """The extension's version, logged when it is loaded."""
        return "unknown"

    def config(self) -> ConfigDef:
        """The worker settings the extension reads (``GET /connector-plugins/{p}/config``, KIP-1273)."""
        return ConfigDef()
