"""`GET /metrics`: every task's counters and every state, in Prometheus' text format.

Kafka Connect publishes these through JMX; a Conveyor worker serves them where a Prometheus server
can scrape them directly. Names are the task metric names with `-` turned into `_`, prefixed
`conveyor_task_`, labelled with the connector and task.
"""

from __future__ import annotations

import re

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from conveyor.errors import NotFoundError
from conveyor.herder.api import Herder
from conveyor.rest.openapi import errors

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_INVALID = re.compile(r"[^a-zA-Z0-9_]")


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def exposition(herder: Herder) -> str:
    """The text a scrape returns: one gauge per task metric, plus connector and task states."""
    samples: dict[str, list[str]] = {}
    for name in herder.connectors():
        try:
            status = herder.connector_status(name)
        except NotFoundError:
            continue
        connector = _label(name)
        samples.setdefault("conveyor_connector_state", []).append(
            f'conveyor_connector_state{{connector="{connector}",state="{status.connector.state}"}} 1'
        )
        for task in status.tasks:
            labels = f'connector="{connector}",task="{task.id}"'
            samples.setdefault("conveyor_task_state", []).append(
                f'conveyor_task_state{{{labels},state="{task.state}"}} 1'
            )
            for metric, value in task.metrics.items():
                if isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                family = "conveyor_task_" + _INVALID.sub("_", metric)
                samples.setdefault(family, []).append(f"{family}{{{labels}}} {value}")
    lines: list[str] = []
    for family, family_samples in sorted(samples.items()):
        lines.append(f"# TYPE {family} gauge")
        lines.extend(family_samples)
    return "\n".join(lines) + "\n"


def metrics_router(herder: Herder) -> APIRouter:
    router = APIRouter(tags=["worker"], responses=errors(500, 503))

    @router.get(
        "/metrics",
        summary="Task counters and states in Prometheus' text format",
        response_class=PlainTextResponse,
    )
    def metrics() -> PlainTextResponse:
        return PlainTextResponse(exposition(herder), media_type=CONTENT_TYPE)

    return router
