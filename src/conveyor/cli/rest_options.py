"""How `conveyor` commands that call a worker's REST API reach it: URL, credentials, CA file, certificate.

`rest_client_options` adds `--url`, `--user`, `--password`, `--ca-file` and `--client-cert` to a click
command (each also read from an environment variable: `CONVEYOR_URL`, `CONVEYOR_REST_USER`, ..., so a
password need not be typed on the command line); the command receives a `RestClientSettings` as `rest`
and calls `.client()`.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
import httpx

from conveyor.cli.rest_client import DEFAULT_URL

TIMEOUT_S = 60.0

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class RestClientSettings:
    """Where a worker's REST API is and how to prove who we are to it."""

    url: str = DEFAULT_URL
    user: str | None = None
    password: str | None = None
    ca_file: Path | None = None
    client_cert: Path | None = None

    def client(self) -> httpx.Client:
        """An HTTP client for the API, with basic auth and TLS as these settings give them."""
        auth = (self.user, self.password or "") if self.user else None
        return httpx.Client(base_url=self.url, auth=auth, verify=self.ssl_context(), timeout=TIMEOUT_S)

    def ssl_context(self) -> ssl.SSLContext:
        """The system's CAs, or only the CA file's; the client certificate (PEM, key included) if given."""
        context = ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file else None)
        if self.client_cert is not None:
            context.load_cert_chain(str(self.client_cert))
        return context


def rest_client_options(command: F) -> F:
    """Add the REST client options to `command`, which then receives `rest: RestClientSettings`."""
    file_type = click.Path(exists=True, dir_okay=False, path_type=Path)
    options = [
        click.option("--url", envvar="CONVEYOR_URL", default=DEFAULT_URL, show_default=True,
                     help="The worker's REST URL (or set CONVEYOR_URL)."),
        click.option("--user", envvar="CONVEYOR_REST_USER", help="User for basic authentication."),
        click.option("--password", envvar="CONVEYOR_REST_PASSWORD",
                     help="Password for basic authentication (better: CONVEYOR_REST_PASSWORD)."),
        click.option("--ca-file", envvar="CONVEYOR_REST_CA_FILE", type=file_type,
                     help="PEM bundle of the CAs to trust for an https URL, instead of the system's."),
        click.option("--client-cert", envvar="CONVEYOR_REST_CLIENT_CERT", type=file_type,
                     help="PEM file with a client certificate and its key, for ssl.client.auth."),
    ]  # fmt: skip

    @functools.wraps(command)
    def with_settings(**kwargs: Any) -> Any:
        settings = RestClientSettings(
            url=kwargs.pop("url"),
            user=kwargs.pop("user"),
            password=kwargs.pop("password"),
            ca_file=kwargs.pop("ca_file"),
            client_cert=kwargs.pop("client_cert"),
        )
        return command(rest=settings, **kwargs)

    wrapped: Any = with_settings
    for option in reversed(options):
        wrapped = option(wrapped)
    result: F = wrapped
    return result
