"""A connector's status and tasks, and the requests that change its state: restart, pause, resume, stop."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from fastapi.responses import JSONResponse

from conveyor.herder.api import Herder
from conveyor.rest.change_routes import bodyless_change
from conveyor.rest.change_threads import on_change_threads
from conveyor.rest.openapi import (
    ConnectorStateInfoBody,
    TaskInfoBody,
    TaskStateBody,
    body,
    errors,
    no_body,
)
from conveyor.rest.query import query_bool

TAG = "connectors"


def connector_lifecycle_router(herder: Herder) -> APIRouter:
    router = APIRouter(prefix="/connectors/{connector:segment}", tags=[TAG], responses=errors(404, 500, 503))

    @router.get(
        "/status",
        summary="The state of a connector and of each of its tasks",
        response_model=None,
        responses=body(ConnectorStateInfoBody, 200),
    )
    def connector_status(connector: str) -> dict[str, Any]:
        return herder.cluster_status(connector).to_json()

    @router.get(
        "/tasks",
        summary="A connector's tasks and their configs",
        response_model=None,
        responses=body(list[TaskInfoBody], 200),
    )
    def task_configs(connector: str) -> list[dict[str, Any]]:
        return [task.to_json() for task in herder.task_configs(connector)]

    @router.get(
        "/tasks-config",
        deprecated=True,
        summary="A connector's task configs keyed by task id (deprecated by KIP-970: use /tasks)",
    )
    def tasks_config(connector: str) -> dict[str, dict[str, str]]:
        tasks = herder.task_configs(connector)
        return {f"{task.id.connector}-{task.id.task}": dict(task.config) for task in tasks}

    @router.get(
        "/tasks/{task}/status",
        summary="The state of one task",
        response_model=None,
        responses=body(TaskStateBody, 200),
    )
    def task_status(connector: str, task: int) -> dict[str, Any]:
        return herder.cluster_task_status(connector, task).to_json()

    @bodyless_change(router.post, "/tasks/{task}/restart", 204, "Restart one task", "Restarted", errors(409))
    def restart_task(connector: str, task: int) -> None:
        herder.restart_task(connector, task)

    @router.post(
        "/restart",
        summary="Restart a connector; with includeTasks or onlyFailed (KIP-745) answers what restarts",
        status_code=202,
        responses={
            **body(
                ConnectorStateInfoBody, 202, description="Restart requested; the body shows what will restart"
            ),
            **no_body(204, "The connector restarted (neither includeTasks nor onlyFailed)"),
            **errors(409),
        },
    )
    @on_change_threads
    def restart_connector(
        connector: str,
        include_tasks: Annotated[str | None, Query(alias="includeTasks", description="true or false")] = None,
        only_failed: Annotated[str | None, Query(alias="onlyFailed", description="true or false")] = None,
    ) -> Response:
        include = query_bool(include_tasks, default=False)
        failed_only = query_bool(only_failed, default=False)
        state = herder.restart_connector(connector, include_tasks=include, only_failed=failed_only)
        if not include and not failed_only:
            return Response(status_code=204)
        return JSONResponse(status_code=202, content=state.to_json())

    @bodyless_change(router.put, "/pause", 202, "Pause a connector and its tasks (idempotent)", "Pausing")
    def pause_connector(connector: str) -> None:
        herder.pause_connector(connector)

    @bodyless_change(
        router.put, "/resume", 202, "Resume a paused or stopped connector (idempotent)", "Resuming"
    )
    def resume_connector(connector: str) -> None:
        herder.resume_connector(connector)

    @bodyless_change(router.put, "/stop", 204, "Stop a connector and shut down its tasks (idempotent)")
    def stop_connector(connector: str) -> None:
        herder.stop_connector(connector)

    return router
