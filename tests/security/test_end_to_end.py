"""Clients reach a worker behind TLS and basic auth: `requests` with a CA bundle, and the CLI's options."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import httpx
import pytest
import requests
from click.testing import CliRunner

from conveyor.cli.rest_options import RestClientSettings, rest_client_options
from conveyor.cli.worker_process import StandaloneWorker
from waiting import wait_until

from .conftest import Pki
from .credentials import BCRYPT_USER, basic_auth_props
from .workers import running_worker


@pytest.fixture(scope="module")
def worker(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    folder = tmp_path_factory.mktemp("end-to-end")
    props = {"listeners": "https://127.0.0.1:0", **pki.keystore_props(), **basic_auth_props(folder)}
    with running_worker(folder, props) as started:
        yield started


class Client:
    """`requests` calls with the CA bundle and credentials passed on each call.

    Per call, because `REQUESTS_CA_BUNDLE` in the environment would override a `Session.verify`.
    """

    def __init__(self, base_url: str, ca_bundle: Path) -> None:
        self.base_url = base_url
        self.options = {"verify": str(ca_bundle), "auth": BCRYPT_USER, "timeout": 30}

    def call(self, method: str, path: str, **options: Any) -> requests.Response:
        return requests.request(method, f"{self.base_url}{path}", **self.options, **options)

    def task_state(self, connector: str) -> str | None:
        tasks = self.call("GET", f"/connectors/{connector}/status").json().get("tasks", [])
        return tasks[0]["state"] if tasks else None


def test_requests_creates_runs_and_deletes_a_connector_over_https(
    worker: StandaloneWorker, pki: Pki, tmp_path: Path
) -> None:
    client = Client(worker.url, pki.ca_bundle)
    source = tmp_path / "lines.txt"
    source.write_text("one\ntwo\n")
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": "lines", "tasks.max": "1"}

    created = client.call("POST", "/connectors", json={"name": "lines", "config": config})
    assert created.status_code == 201, created.text
    wait_until(lambda: client.task_state("lines") == "RUNNING", "the task to run", 120)
    assert client.call("DELETE", "/connectors/lines").status_code == 204
    assert client.call("GET", "/connectors").json() == []


def test_requests_without_credentials_is_told_to_authenticate(worker: StandaloneWorker, pki: Pki) -> None:
    response = requests.get(f"{worker.url}/connectors", verify=str(pki.ca_bundle), timeout=30)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Basic ")


@click.command()
@rest_client_options
def list_connectors(rest: RestClientSettings) -> None:
    """What a `conveyor` command calling the REST API does with the options."""
    with rest.client() as client:
        response = client.get("/connectors")
        click.echo(f"{response.status_code} {response.text}")


def test_cli_options_reach_a_worker_behind_tls_and_basic_auth(worker: StandaloneWorker, pki: Pki) -> None:
    user, password = BCRYPT_USER
    args = ["--url", worker.url, "--user", user, "--ca-file", str(pki.ca_bundle)]
    result = CliRunner().invoke(list_connectors, args, env={"CONVEYOR_REST_PASSWORD": password})
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "200 []"


def test_cli_options_without_credentials_get_the_401(worker: StandaloneWorker, pki: Pki) -> None:
    result = CliRunner().invoke(list_connectors, ["--url", worker.url, "--ca-file", str(pki.ca_bundle)])
    assert result.output.startswith("401 ")


def test_cli_options_without_the_ca_file_refuse_the_workers_certificate(worker: StandaloneWorker) -> None:
    result = CliRunner().invoke(list_connectors, ["--url", worker.url])
    assert isinstance(result.exception, httpx.ConnectError)
