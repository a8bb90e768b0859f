"""`GET /health` (KIP-1017) reports a herder stuck on an operation, names the operation, and recovers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from tests.rest.blocking_connector import BLOCKING_STOP_CONNECTOR, GATE, RELEASE_TIMEOUT_S

from conveyor.herder.stages import HEALTH_CHECK_TIMEOUT_S
from conveyor.herder.standalone import StandaloneHerder
from waiting import wait_until

from .connectors import create_connector, unique_name
from .workers import unstarted_herder

UNHEALTHY = "Worker was unable to handle this request and may be unable to handle other requests."


@pytest.fixture(scope="module")
def herder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneHerder]:
    """A worker that waits for a connector's `stop()` for longer than the health check's timeout (by
    default it gives up on it after `task.shutdown.graceful.timeout.ms`), so that a stuck stop shows."""
    settings = {"task.shutdown.graceful.timeout.ms": str(int(RELEASE_TIMEOUT_S * 1000))}
    with unstarted_herder(tmp_path_factory.mktemp("worker"), **settings) as standalone:
        standalone.start()
        try:
            yield standalone
        finally:
            standalone.stop()


@pytest.fixture
def gate() -> Iterator[None]:
    GATE.reset()
    try:
        yield
    finally:
        GATE.release()


def test_a_herder_stuck_on_an_operation_is_unhealthy_until_the_operation_ends(
    client: httpx.Client, gate: None
) -> None:
    name = unique_name("stuck")
    create_connector(client, name, {"connector.class": BLOCKING_STOP_CONNECTOR})
    with ThreadPoolExecutor(1) as pool:
        deleting = pool.submit(lambda: client.delete(f"/connectors/{name}").status_code)
        try:
            wait_until(lambda: GATE.waiting == 1, "the connector blocked in stop()")
            stuck = wait_until(
                lambda: (response := client.get("/health")).status_code == 500 and response,
                "the health check to find the herder stuck",
                timeout_s=HEALTH_CHECK_TIMEOUT_S * 6,
            )
        finally:
            GATE.release()
        assert deleting.result(60) == 204
    body = stuck.json()
    assert body["status"] == "unhealthy"
    assert re.fullmatch(
        re.escape(f"{UNHEALTHY} The worker is currently deleting the connector {name}, which began at ")
        + r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\.",
        body["message"],
    ), body["message"]
    healthy = client.get("/health")
    assert healthy.status_code == 200 and healthy.json()["status"] == "healthy"
