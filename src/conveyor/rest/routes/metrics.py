"""`GET /metrics`: Kafka Connect's metric groups for what this worker runs, for Prometheus to scrape.

Kafka Connect publishes these through JMX and its users add the Prometheus JMX exporter; a Conveyor
worker serves the exporter's rendering itself (see docs/monitoring.md).
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import CollectorRegistry, generate_latest

from conveyor.herder.api import Herder
from conveyor.metrics.metric_groups import MetricNaming
from conveyor.rest.connect_collector import ConnectCollector
from conveyor.rest.openapi import errors

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus' classic text format, which every Prometheus server and agent reads."""


def metrics_registry(
    herder: Herder, namings: tuple[MetricNaming, ...] = (MetricNaming.JMX_DEFAULT,)
) -> CollectorRegistry:
    """A registry holding only this worker's Connect metrics (no process or platform collectors)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ConnectCollector(herder.connect_metrics, namings))
    return registry


def metrics_router(
    herder: Herder, namings: tuple[MetricNaming, ...] = (MetricNaming.JMX_DEFAULT,)
) -> APIRouter:
    router = APIRouter(tags=["worker"], responses=errors(500, 503))
    registry = metrics_registry(herder, namings)

    @router.get(
        "/metrics",
        summary="Kafka Connect's metrics of this worker in Prometheus' text format",
        response_class=Response,
        responses={200: {"content": {CONTENT_TYPE: {}}}},
    )
    def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE)

    return router
