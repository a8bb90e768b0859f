"""A worker's REST server as its config describes it: listeners, TLS, admin listeners, extensions, CORS."""

from __future__ import annotations

import ssl
from collections.abc import Sequence

from conveyor.herder.api import Herder
from conveyor.rest.app import create_admin_app, create_app
from conveyor.rest.cors import CorsPolicy
from conveyor.rest.extensions import HerderClusterState, RestExtensions
from conveyor.rest.listeners import Listener, parse_listeners
from conveyor.rest.routes.internal import InternalHerder
from conveyor.rest.server import ListenerGroup, RestServer
from conveyor.rest.tls import client_ssl_context, server_ssl_context
from conveyor.settings.ssl_config import SslConfig
from conveyor.settings.worker_config import WorkerConfig


class WorkerRestServer:
    """Builds the apps and the server from a `WorkerConfig`, and closes the REST extensions on stop.

    With `admin.listeners` unset the `/admin` endpoints are served on the regular listeners; set, only
    on its own listeners (none when empty), as KIP-495 has it.
    """

    def __init__(self, herder: Herder, config: WorkerConfig, internal: InternalHerder | None = None) -> None:
        self._config = config
        self._internal = internal
        self.extensions = RestExtensions.load(
            config.rest_extension_classes, config.props, HerderClusterState(herder)
        )
        try:
            self.server = self._server(herder, config)
        except BaseException:
            self.extensions.close()
            raise

    def _server(self, herder: Herder, config: WorkerConfig) -> RestServer:
        cors = CorsPolicy(config.cors_allowed_origins, config.cors_allowed_methods)
        filters = self.extensions.filters
        limit = config.rest_request_max_bytes
        admin_listeners = None
        if config.admin_listeners is not None:
            admin_listeners = parse_listeners(config.admin_listeners, allow_none=True)
        app = create_app(
            herder,
            admin_enabled=admin_listeners is None,
            max_request_bytes=limit,
            request_filters=filters,
            cors=cors,
            internal=self._internal,
            inter_worker_tls=client_ssl_context(config.rest_ssl),
            metric_namings=config.metric_namings,
        )
        admin = None
        if admin_listeners:
            admin_app = create_admin_app(max_request_bytes=limit, request_filters=filters, cors=cors)
            admin_ssl = _ssl_context(admin_listeners, config.admin_ssl)
            admin = ListenerGroup(admin_app, tuple(admin_listeners), admin_ssl)
        main_ssl = _ssl_context(parse_listeners(config.listeners), config.rest_ssl)
        return RestServer(app, config.listeners, ssl_context=main_ssl, admin=admin)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def advertised_url(self) -> str:
        """The URL of the listener `rest.advertised.listener` names (the first listener if none matches)."""
        return self.server.url_of(self._config.advertised_listener)

    def start(self) -> None:
        self.server.start()

    def stop(self) -> None:
        self.server.stop()
        self.extensions.close()


def _ssl_context(listeners: Sequence[Listener], config: SslConfig) -> ssl.SSLContext | None:
    if not any(listener.protocol == "https" for listener in listeners):
        return None
    return server_ssl_context(config)
