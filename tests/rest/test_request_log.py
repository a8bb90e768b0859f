"""Each request is logged with the connector it names, and never with its body."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest

from .connectors import file_source_config, unique_name

REQUEST_LOGGER = "conveyor.rest.requests"
WEB_LOGGERS = ("conveyor.rest", "uvicorn", "fastapi")


def _request_lines(caplog: pytest.LogCaptureFixture, fragment: str) -> list[str]:
    """The request log lines holding `fragment`, waiting briefly: a line is written after the answer."""
    deadline = time.monotonic() + 5
    while True:
        messages = [record.getMessage() for record in caplog.records if record.name == REQUEST_LOGGER]
        lines = [message for message in messages if fragment in message]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.02)


def test_a_request_is_logged_with_method_path_status_and_connector(
    client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    name = unique_name("missing")
    with caplog.at_level(logging.INFO, logger=REQUEST_LOGGER):
        client.get(f"/connectors/{name}/status")
        lines = _request_lines(caplog, name)
    assert len(lines) == 1
    assert lines[0].startswith(f"GET /connectors/{name}/status 404 ")
    assert lines[0].endswith(f"connector={name}")


def test_a_request_body_is_never_logged(
    client: httpx.Client, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    secret = "hunter2-" + unique_name()
    config = {**file_source_config(tmp_path), "database.password": secret}
    with caplog.at_level(logging.DEBUG):
        client.put(f"/connectors/{unique_name()}/config", json=config)
        assert _request_lines(caplog, "PUT /connectors/")
    web_records = [record for record in caplog.records if record.name.startswith(WEB_LOGGERS)]
    assert web_records
    assert not [record for record in web_records if secret in record.getMessage()]


def test_the_path_is_logged_percent_encoded_so_it_cannot_forge_a_line(
    client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    name = unique_name("missing")
    forged = f"{name}%0A%5B2026-01-01%5D%20ERROR%20forged"
    with caplog.at_level(logging.INFO, logger=REQUEST_LOGGER):
        client.get(f"/connectors/{forged}/status?x=%0D")
        lines = _request_lines(caplog, name)
    assert lines == [lines[0]]
    assert "\n" not in lines[0] and "\r" not in lines[0]
    assert lines[0].startswith(f"GET /connectors/{forged}/status?x=%0D 404 ")
    assert lines[0].endswith(f"connector={forged}")
