"""Slow changes to connectors hold up neither reads nor changes to other connectors.

Each connector here blocks in `stop()` until released, as a connector whose tasks are slow to stop
holds its delete. The gate is imported by the name the worker loads the plugin by, so both share it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import httpx
import pytest
from tests.rest.blocking_connector import BLOCKING_STOP_CONNECTOR, GATE

from .connectors import create_connector, unique_name

WAIT_S = 60.0
BLOCKED_DELETES = 50
"""More than the 40 threads FastAPI shares between all plain endpoints."""


@pytest.fixture
def gate() -> Iterator[None]:
    GATE.reset()
    try:
        yield
    finally:
        GATE.release()


def _blocking_connector(client: httpx.Client) -> str:
    name = unique_name("blocking")
    create_connector(client, name, {"connector.class": BLOCKING_STOP_CONNECTOR})
    return name


def _wait_until(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _delete_in_background(pool: ThreadPoolExecutor, client: httpx.Client, name: str) -> Future[int]:
    return pool.submit(lambda: client.delete(f"/connectors/{name}").status_code)


def test_deleting_a_connector_does_not_wait_for_another_one_to_stop(client: httpx.Client, gate: None) -> None:
    stuck, other = _blocking_connector(client), unique_name()
    create_connector(client, other, {"connector.class": BLOCKING_STOP_CONNECTOR}, initial_state="STOPPED")
    with ThreadPoolExecutor(1) as pool:
        stuck_delete = _delete_in_background(pool, client, stuck)
        assert _wait_until(lambda: GATE.waiting == 1)
        assert client.delete(f"/connectors/{other}").status_code == 204
        GATE.release()
        assert stuck_delete.result(WAIT_S) == 204


def test_reads_are_answered_while_more_deletes_than_threads_wait_for_connectors_to_stop(
    client: httpx.Client, gate: None
) -> None:
    names = [_blocking_connector(client) for _ in range(BLOCKED_DELETES)]
    with ThreadPoolExecutor(BLOCKED_DELETES) as pool:
        deletes = [_delete_in_background(pool, client, name) for name in names]
        try:
            assert _wait_until(lambda: GATE.waiting == BLOCKED_DELETES)
            assert client.get("/").status_code == 200
            assert set(names) <= set(client.get("/connectors").json())
            assert client.get(f"/connectors/{names[0]}/status").status_code == 200
        finally:
            GATE.release()
        assert [delete.result(WAIT_S) for delete in deletes] == [204] * BLOCKED_DELETES
