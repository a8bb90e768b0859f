"""A real standalone worker (embedded log, Spark task runner, `StandaloneHerder`) behind the REST API.

One worker serves each test module; every test's connectors are deleted after it so their Spark
slots are free for the next test.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest

from conveyor.herder.standalone import StandaloneHerder

from .serving import serving
from .workers import unstarted_herder


@pytest.fixture(scope="module")
def herder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneHerder]:
    with unstarted_herder(tmp_path_factory.mktemp("worker")) as standalone:
        standalone.start()
        try:
            yield standalone
        finally:
            standalone.stop()


@pytest.fixture(scope="module")
def served(herder: StandaloneHerder) -> Iterator[httpx.Client]:
    with serving(herder) as client:
        yield client


@pytest.fixture
def client(served: httpx.Client) -> Iterator[httpx.Client]:
    """The REST client of this module's worker; the connectors a test creates are deleted after it."""
    yield served
    for name in served.get("/connectors").json():
        served.delete(f"/connectors/{quote(name, safe='')}")
