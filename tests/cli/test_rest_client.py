"""The CLI's REST client against the answers a worker of a group gives while it catches up."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conveyor.cli.rest_client import ConnectRestClient
from conveyor.errors import ConnectError


def worker_still_reading_status(expanded_after: int) -> tuple[ConnectRestClient, list[int]]:
    """A worker listing `a` and `late`, whose expanded listing leaves `late` out for its first answers,
    as a worker does (like Kafka Connect's) until it has read the connector's status."""
    asked = [0]

    def answer(request: httpx.Request) -> httpx.Response:
        if not request.url.params.get_list("expand"):
            return httpx.Response(200, json=["a", "late"])
        asked[0] += 1
        body: dict[str, Any] = {"a": {"status": {}, "info": {}}}
        if asked[0] > expanded_after:
            body["late"] = {"status": {}, "info": {}}
        return httpx.Response(200, json=body)

    http = httpx.Client(base_url="http://worker", transport=httpx.MockTransport(answer))
    return ConnectRestClient("http://worker", http=http), asked


def test_every_connector_asks_again_until_each_listed_connector_is_expanded() -> None:
    client, asked = worker_still_reading_status(expanded_after=2)

    assert sorted(client.every_connector()) == ["a", "late"]
    assert asked[0] == 3


def test_every_connector_names_a_connector_the_worker_never_expands() -> None:
    client, _ = worker_still_reading_status(expanded_after=10**6)

    with pytest.raises(ConnectError, match="lists late but has not shown its status"):
        client.every_connector(settle_s=0.3)
