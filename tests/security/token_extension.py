"""A user's REST extension, named by its dotted path `tests.security.token_extension:TokenExtension`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conveyor.api import (
    ConnectClusterState,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RestRequest,
    RestResponse,
)

TOKEN = "t0ken"


class TokenExtension(ConnectRestExtension):
    """Wants `Authorization: Bearer <rest.token>`, and answers `GET /token-extension/cluster` itself."""

    closed: ClassVar[list[str]] = []

    def configure(self, configs: Mapping[str, str]) -> None:
        self.token = configs["rest.token"]

    def register(self, context: ConnectRestExtensionContext) -> None:
        self.cluster: ConnectClusterState = context.cluster_state
        context.register_filter(self.check_token)
        context.register_filter(self.describe_cluster)

    def check_token(self, request: RestRequest) -> RestResponse | None:
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return RestResponse.error(401, "Token required", {"WWW-Authenticate": "Bearer"})
        return None

    def describe_cluster(self, request: RestRequest) -> RestResponse | None:
        if request.path != "/token-extension/cluster":
            return None
        body = {"connectors": self.cluster.connectors(), "id": self.cluster.kafka_cluster_id()}
        return RestResponse(200, body)

    def close(self) -> None:
        TokenExtension.closed.append(self.token)
