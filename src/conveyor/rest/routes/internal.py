"""The endpoints workers of one group call on each other (Kafka's internal REST API), all signed.

`POST /connectors/{c}/tasks` carries task configs a follower's connector generated to the leader;
`PUT /connectors/{c}/fence` asks the leader to fence a connector's older task producers (KIP-618);
`GET /conveyor/internal/worker` answers a peer with this worker's tasks' metrics and usage, so that any
worker shows the whole group.
Each request's KIP-507 signature is checked before the herder sees it (400, 403 or 503 if refused).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, Protocol

from fastapi import APIRouter, Depends

from conveyor.errors import BadRequestError
from conveyor.herder.distributed.peer_views import WorkerView
from conveyor.rest.change_routes import bodyless_change
from conveyor.rest.internal_requests import InternalRequestVerifier
from conveyor.rest.openapi import errors
from conveyor.storage.config_records import SessionKey

TAG = "internal"


class InternalHerder(Protocol):
    """What a herder serving the internal endpoints offers (the distributed one)."""

    @property
    def verification_algorithms(self) -> Collection[str]: ...

    def session_key(self) -> SessionKey | None: ...

    def signing_required(self) -> bool: ...

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> None: ...

    def fence_zombies(self, name: str) -> None: ...

    def local_view(self) -> WorkerView: ...


def internal_router(herder: InternalHerder) -> APIRouter:
    """The internal endpoints. The verifier is a default value, not an annotation, since FastAPI cannot
    resolve a closure's names in postponed annotations."""
    verifier = InternalRequestVerifier(
        herder.session_key, herder.verification_algorithms, herder.signing_required
    )
    router = APIRouter(tags=[TAG], responses=errors(400, 403, 503))

    @router.get(
        "/conveyor/internal/worker",
        summary="This worker's tasks' metrics, usage and (the leader) the group's members (internal; signed)",
        response_model=None,
    )
    def worker_view(body: bytes = Depends(verifier)) -> dict[str, Any]:
        return herder.local_view().to_json()

    connectors = APIRouter(prefix="/connectors/{connector:segment}")

    @bodyless_change(
        connectors.post,
        "/tasks",
        204,
        "Write task configs generated on another worker (internal; leader only; signed)",
        responses=errors(404, 409),
    )
    def put_task_configs(connector: str, body: bytes = Depends(verifier)) -> None:
        herder.put_task_configs(connector, _task_configs(body))

    @bodyless_change(
        connectors.put,
        "/fence",
        204,
        "Fence the connector's older task producers (internal; leader only; signed; KIP-618)",
        responses=errors(404, 409),
    )
    def fence_zombies(connector: str, body: bytes = Depends(verifier)) -> None:
        herder.fence_zombies(connector)

    router.include_router(connectors)
    return router


def _task_configs(body: bytes) -> list[dict[str, str]]:
    try:
        parsed = json.loads(body or b"null")
    except ValueError as error:
        raise BadRequestError(f"Malformed JSON in request body: {error}") from error
    if not isinstance(parsed, list) or not all(isinstance(config, dict) for config in parsed):
        raise BadRequestError("Task configs must be a JSON array of objects")
    return [{str(k): str(v) for k, v in config.items()} for config in parsed]
