"""Builds the FastAPI app that serves Kafka Connect's REST API over a herder."""

from __future__ import annotations

import ssl
from collections.abc import Sequence

from fastapi import APIRouter, FastAPI

from conveyor.api.rest_extension import RequestFilter
from conveyor.herder.api import Herder
from conveyor.herder.distributed.errors import RebalanceNeededError, RequestTargetError
from conveyor.metrics.metric_groups import MetricNaming
from conveyor.rest import server_info
from conveyor.rest.body_limit import DEFAULT_MAX_REQUEST_BYTES, RequestBodyLimitMiddleware
from conveyor.rest.console import install_console
from conveyor.rest.console.history import ConsoleHistory, HistorySampler
from conveyor.rest.cors import CorsPolicy
from conveyor.rest.errors import install_error_handlers
from conveyor.rest.extensions import RequestFilterMiddleware
from conveyor.rest.forwarding import ForwardingMiddleware, rebalance_needed_error, request_target_error
from conveyor.rest.logger_levels import LoggerLevels
from conveyor.rest.openapi import install_openapi
from conveyor.rest.path_segments import PathSegmentsMiddleware
from conveyor.rest.request_log import RequestLogMiddleware
from conveyor.rest.routes.connector_lifecycle import connector_lifecycle_router
from conveyor.rest.routes.connectors import connectors_router
from conveyor.rest.routes.conveyor import conveyor_router
from conveyor.rest.routes.internal import InternalHerder, internal_router
from conveyor.rest.routes.loggers import loggers_router
from conveyor.rest.routes.metrics import metrics_router
from conveyor.rest.routes.offsets import offsets_router
from conveyor.rest.routes.plugins import plugins_router
from conveyor.rest.routes.root import root_router
from conveyor.rest.routes.topics import topics_router

DESCRIPTION = (
    "Kafka Connect's REST API, served by a Conveyor worker: the same paths, status codes and bodies, "
    'with every error as `{"error_code": <int>, "message": <str>}`.'
)


def create_app(
    herder: Herder,
    *,
    admin_enabled: bool = True,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    internal: InternalHerder | None = None,
    request_filters: Sequence[RequestFilter] = (),
    cors: CorsPolicy | None = None,
    inter_worker_tls: ssl.SSLContext | None = None,
    metric_namings: tuple[MetricNaming, ...] = (MetricNaming.JMX_DEFAULT,),
) -> FastAPI:
    """The REST app over `herder`, with the web console at `/ui`; `/admin/*` only when `admin_enabled`.

    A request body larger than `max_request_bytes` is answered 413 unread. Every request passes the
    `request_filters` (of REST extensions) first, CORS preflight requests excepted when `cors` is on.
    With `internal` (a worker of a group), the signed inter-worker endpoints are served too, and
    requests another worker must serve are forwarded there. `GET /metrics` names its samples by each of
    `metric_namings`.

    Every endpoint is a plain function, so FastAPI runs its blocking herder call on a worker thread
    and a slow call never holds up the others.
    """
    app = FastAPI(title="Conveyor REST API", version=server_info.version(), description=DESCRIPTION)
    if internal is not None:
        app.include_router(internal_router(internal))
    for router in api_routers(herder, admin_enabled=admin_enabled, metric_namings=metric_namings):
        app.include_router(router)
    history = ConsoleHistory()
    app.include_router(conveyor_router(herder, history))
    HistorySampler(herder, history).start(owner=app)
    install_console(app)
    install_openapi(app)
    app.add_exception_handler(RequestTargetError, request_target_error)
    app.add_exception_handler(RebalanceNeededError, rebalance_needed_error)
    app.add_middleware(ForwardingMiddleware, tls=inter_worker_tls)
    _install_common_layers(app, max_request_bytes, request_filters, cors)
    return app


def create_admin_app(
    *,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    request_filters: Sequence[RequestFilter] = (),
    cors: CorsPolicy | None = None,
) -> FastAPI:
    """The app of the admin listeners (KIP-495): only the `/admin/*` endpoints, behind the same filters."""
    app = FastAPI(title="Conveyor admin REST API", version=server_info.version(), openapi_url=None)
    app.include_router(admin_router())
    _install_common_layers(app, max_request_bytes, request_filters, cors)
    return app


def _install_common_layers(
    app: FastAPI, max_request_bytes: int, request_filters: Sequence[RequestFilter], cors: CorsPolicy | None
) -> None:
    """Error handling, then (from the inside out) path segments, body limit, filters, CORS, request log."""
    install_error_handlers(app)
    app.add_middleware(PathSegmentsMiddleware)
    app.add_middleware(RequestBodyLimitMiddleware, max_bytes=max_request_bytes)
    if request_filters:
        app.add_middleware(RequestFilterMiddleware, filters=request_filters)
    if cors is not None and cors.enabled:
        cors.install(app)
    app.add_middleware(RequestLogMiddleware)


def admin_router() -> APIRouter:
    """The `/admin/*` endpoints."""
    return loggers_router(LoggerLevels())


def api_routers(
    herder: Herder,
    *,
    admin_enabled: bool,
    metric_namings: tuple[MetricNaming, ...] = (MetricNaming.JMX_DEFAULT,),
) -> list[APIRouter]:
    """Every group of endpoints the app serves."""
    routers = [
        root_router(herder),
        connectors_router(herder),
        connector_lifecycle_router(herder),
        offsets_router(herder),
        topics_router(herder),
        plugins_router(herder),
        metrics_router(herder, metric_namings),
    ]
    if admin_enabled:
        routers.append(admin_router())
    return routers
