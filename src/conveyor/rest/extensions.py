"""Loads `rest.extension.classes`, registers them, and runs their request filters on every request."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from conveyor.api.rest_extension import (
    ConnectClusterState,
    ConnectorHealth,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RequestFilter,
    RestRequest,
    RestResponse,
    TaskHealth,
)
from conveyor.errors import ConfigError
from conveyor.herder.api import Herder
from conveyor.plugins import PluginNotFoundError, import_plugin_class
from conveyor.rest.path_segments import segment_preserving_path

logger = logging.getLogger(__name__)

#: Kafka Connect's class names of the extensions Conveyor ships.
KAFKA_EXTENSION_NAMES = {
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension": (
        "conveyor.rest.basic_auth.extension.BasicAuthSecurityRestExtension"
    ),
}


class HerderClusterState(ConnectClusterState):
    """The cluster as a herder sees it."""

    def __init__(self, herder: Herder) -> None:
        self._herder = herder

    def connectors(self) -> list[str]:
        return self._herder.connectors()

    def connector_health(self, name: str) -> ConnectorHealth:
        status = self._herder.connector_status(name)
        tasks = {
            task.id: TaskHealth(task.id, task.state, task.worker_id, task.trace) for task in status.tasks
        }
        state = status.connector
        return ConnectorHealth(name, state.state, state.worker_id, status.type, tasks, state.trace)

    def connector_config(self, name: str) -> dict[str, str]:
        return self._herder.connector_config(name)

    def kafka_cluster_id(self) -> str:
        return self._herder.kafka_cluster_id


class _Context(ConnectRestExtensionContext):
    def __init__(self, cluster_state: ConnectClusterState) -> None:
        self._cluster_state = cluster_state
        self.filters: list[RequestFilter] = []

    def register_filter(self, request_filter: RequestFilter) -> None:
        self.filters.append(request_filter)

    @property
    def cluster_state(self) -> ConnectClusterState:
        return self._cluster_state


class RestExtensions:
    """The extensions a worker loaded, and the filters they registered, in `rest.extension.classes` order."""

    def __init__(self, extensions: Sequence[ConnectRestExtension], filters: Sequence[RequestFilter]) -> None:
        self.extensions = tuple(extensions)
        self.filters = tuple(filters)

    @classmethod
    def load(
        cls, class_names: Sequence[str], worker_props: Mapping[str, str], cluster_state: ConnectClusterState
    ) -> RestExtensions:
        """Build, configure and register each named extension; a bad name or class is a `ConfigError`."""
        context = _Context(cluster_state)
        loaded: list[ConnectRestExtension] = []
        try:
            for name in class_names:
                extension = extension_class(name)()
                loaded.append(extension)
                extension.configure(dict(worker_props))
                extension.register(context)
                logger.info("Registered REST extension %s (version %s)", name, extension.version())
        except BaseException:
            cls(loaded, ()).close()
            raise
        return cls(loaded, context.filters)

    def close(self) -> None:
        for extension in self.extensions:
            try:
                extension.close()
            except Exception:
                logger.exception("REST extension %s failed to close", type(extension).__name__)


def extension_class(name: str) -> type[ConnectRestExtension]:
    """The class `name` refers to: a Python path in a plugin package, or a Kafka class name Conveyor ships."""
    try:
        found = import_plugin_class(KAFKA_EXTENSION_NAMES.get(name, name))
    except PluginNotFoundError as error:
        raise ConfigError("rest.extension.classes", name, str(error)) from error
    if not issubclass(found, ConnectRestExtension):
        raise ConfigError("rest.extension.classes", name, "Not a ConnectRestExtension")
    return found


class RequestFilterMiddleware:
    """Runs the filters on each HTTP request, in order; the first answer a filter gives is sent instead."""

    def __init__(self, app: ASGIApp, filters: Sequence[RequestFilter]) -> None:
        self.app = app
        self.filters = tuple(filters)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.filters:
            await self.app(scope, receive, send)
            return
        answer = await run_in_threadpool(self._first_answer, _request(scope))
        if answer is None:
            await self.app(scope, receive, send)
            return
        await _response(answer)(scope, receive, send)

    def _first_answer(self, request: RestRequest) -> RestResponse | None:
        for request_filter in self.filters:
            answer = request_filter(request)
            if answer is not None:
                return answer
        return None


def _request(scope: Scope) -> RestRequest:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    client = scope.get("client")
    raw_path: bytes | None = scope.get("raw_path")
    return RestRequest(
        method=scope["method"],
        path=segment_preserving_path(raw_path.decode("latin-1")) if raw_path else scope["path"],
        headers=headers,
        client_host=client[0] if client else None,
        scheme=scope.get("scheme", "http"),
    )


def _response(answer: RestResponse) -> Response:
    if answer.body is None:
        return Response(status_code=answer.status, headers=dict(answer.headers))
    return JSONResponse(answer.body, status_code=answer.status, headers=dict(answer.headers))
