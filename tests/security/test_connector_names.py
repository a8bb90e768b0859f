"""A connector name cannot spoof another one, nor be too long for a `Location` header: a 400 naming `name`."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from .workers import running_worker


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    with (
        running_worker(tmp_path_factory.mktemp("names"), {}) as worker,
        httpx.Client(base_url=worker.url, timeout=30) as client,
    ):
        yield client


GENERATOR = {"connector.class": "GeneratorSource", "topic": "names", "tasks.max": "1"}


def generator(name: str) -> dict[str, object]:
    """A create request for a connector that starts STOPPED, so that no task runs."""
    return {"name": name, "config": GENERATOR, "initial_state": "STOPPED"}


SPOOFING = {
    "left-to-right embedding": "\u202a",
    "right-to-left embedding": "\u202b",
    "pop directional formatting": "\u202c",
    "left-to-right override": "\u202d",
    "right-to-left override": "\u202e",
    "left-to-right isolate": "\u2066",
    "right-to-left isolate": "\u2067",
    "first strong isolate": "\u2068",
    "pop directional isolate": "\u2069",
    "left-to-right mark": "\u200e",
    "right-to-left mark": "\u200f",
    "arabic letter mark": "\u061c",
    "zero-width space": "\u200b",
    "zero-width non-joiner": "\u200c",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "zero-width no-break space": "\ufeff",
}


@pytest.mark.parametrize("char", SPOOFING.values(), ids=SPOOFING.keys())
def test_a_name_with_a_bidirectional_or_zero_width_character_is_a_400(
    client: httpx.Client, char: str
) -> None:
    response = client.post("/connectors", json=generator(f"pay{char}roll"))
    assert response.status_code == 400, response.text
    message = response.json()["message"]
    assert "name: Invalid value pay\\u" in message
    assert f"had: U+{ord(char):04X}" in message
    assert client.get("/connectors").json() == []


def test_a_name_with_a_spoofing_character_is_refused_by_put_too(client: httpx.Client) -> None:
    response = client.put("/connectors/rtl%E2%80%AEevil/config", json=GENERATOR)
    assert response.status_code == 400, response.text
    assert "U+202E" in response.json()["message"]


def test_validation_reports_a_spoofing_name_on_the_name_key(client: httpx.Client) -> None:
    config = {**GENERATOR, "name": "rtl\u202eevil"}
    response = client.put("/connector-plugins/GeneratorSource/config/validate", json=config)
    assert response.status_code == 200
    errors = {entry["value"]["name"]: entry["value"]["errors"] for entry in response.json()["configs"]}
    assert any("bidirectional or zero-width" in error for error in errors["name"])


def test_a_name_of_249_characters_is_accepted(client: httpx.Client) -> None:
    name = "n" * 249
    response = client.post("/connectors", json=generator(name))
    assert response.status_code == 201, response.text
    assert client.delete(f"/connectors/{name}").status_code == 204


def test_a_name_longer_than_249_characters_is_a_400_saying_so(client: httpx.Client) -> None:
    response = client.post("/connectors", json=generator("n" * 100_000))
    assert response.status_code == 400
    message = response.json()["message"]
    assert "name: " in message
    assert "at most 249 characters long, but this one has 100000" in message
    assert len(message) < 1000
    assert client.get("/connectors").json() == []


def test_other_unicode_in_a_name_is_accepted(client: httpx.Client) -> None:
    name = "café-données-📦"
    response = client.post("/connectors", json=generator(name))
    assert response.status_code == 201, response.text
    assert client.delete(f"/connectors/{name}").status_code == 204


@pytest.fixture(autouse=True)
def no_worker_leftovers(client: httpx.Client) -> Iterator[None]:
    yield
    for name in client.get("/connectors").json():
        client.delete(f"/connectors/{name}")
