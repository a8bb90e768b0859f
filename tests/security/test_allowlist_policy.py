"""KIP-1188's `Allowlist` override policy: a connector may override exactly the client settings the
worker's `connector.client.config.override.allowlist` names, and none when it names none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conveyor.errors import ConfigError
from conveyor.settings.worker_config import WorkerConfig
from log_backends import BACKENDS, fresh_log_url

from .workers import running_worker

POLICY = "connector.client.config.override.policy"
ALLOWLIST = "connector.client.config.override.allowlist"


def refusal(setting: str) -> str:
    return (
        f"The 'Allowlist' policy does not allow '{setting}' to be overridden in the connector configuration."
    )


@pytest.fixture(scope="module", params=BACKENDS)
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    """A worker whose allowlist names one ordinary setting and one that loads code."""
    folder = tmp_path_factory.mktemp(f"allowlist-{request.param}")
    props = {
        "log.url": fresh_log_url(request, request.param, folder),
        POLICY: "Allowlist",
        ALLOWLIST: "linger.ms, plugin.library.paths",
    }
    with running_worker(folder, props) as worker, httpx.Client(base_url=worker.url, timeout=60.0) as opened:
        yield opened


def source(tmp_path: Path, **overrides: str) -> dict[str, str]:
    return {
        "name": "lines",
        "connector.class": "FileStreamSource",
        "file": str(tmp_path / "lines.txt"),
        "topic": "lines",
        **{f"producer.override.{key}": value for key, value in overrides.items()},
    }


def errors(client: httpx.Client, config: dict[str, str]) -> dict[str, list[str]]:
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}


def test_the_allowlist_lets_a_listed_setting_through(client: httpx.Client, tmp_path: Path) -> None:
    assert errors(client, source(tmp_path, **{"linger.ms": "10"})) == {}


def test_the_allowlist_refuses_an_unlisted_setting_with_kafkas_message(
    client: httpx.Client, tmp_path: Path
) -> None:
    assert errors(client, source(tmp_path, acks="1")) == {"producer.override.acks": [refusal("acks")]}


def test_the_allowlist_refuses_to_create_a_connector_with_an_unlisted_setting(
    client: httpx.Client, tmp_path: Path
) -> None:
    response = client.post("/connectors", json={"name": "lines", "config": source(tmp_path, acks="1")})
    assert response.status_code == 400, response.text
    assert "producer.override.acks" in response.json()["message"]
    assert client.get("/connectors").json() == []


def test_a_listed_setting_that_loads_code_is_still_refused(client: httpx.Client, tmp_path: Path) -> None:
    """Listing a setting in the allowlist lifts the policy, not the refusal of unsafe settings."""
    found = errors(client, source(tmp_path, **{"plugin.library.paths": "/tmp/x.so"}))
    assert list(found) == ["producer.override.plugin.library.paths"]
    assert (
        "connector.client.config.override.allowed.unsafe.keys"
        in found["producer.override.plugin.library.paths"][0]
    )


def test_an_empty_allowlist_allows_no_override(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), POLICY: "Allowlist"})
    policy = config.client_override_policy
    assert (policy.name, policy.allowed) == ("Allowlist", frozenset())


def test_the_allowlist_policy_is_named_by_alias_or_kafkas_class_name(tmp_path: Path) -> None:
    for name in (
        "Allowlist",
        "org.apache.kafka.connect.connector.policy.AllowlistConnectorClientConfigOverridePolicy",
    ):
        config = WorkerConfig.from_props({"data.dir": str(tmp_path), POLICY: name, ALLOWLIST: "acks"})
        assert (config.client_override_policy.name, config.client_override_policy.allowed) == (
            "Allowlist",
            frozenset({"acks"}),
        )


def test_an_unknown_policy_is_refused_naming_the_allowlist_among_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Allowlist"):
        WorkerConfig.from_props({"data.dir": str(tmp_path), POLICY: "Some"})
