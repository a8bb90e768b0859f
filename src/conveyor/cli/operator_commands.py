"""`conveyor connectors ...`, `conveyor plugins` and `conveyor status`: drive any worker over its REST API.

Every command takes `--url` (or `CONVEYOR_URL`) and `--output table|json`; tables are for people,
JSON (the REST API's own bodies) for scripts. Exit codes are `ExitCode`'s, listed in docs/cli.md.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

import click
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from conveyor.cli.connector_files import read_connector_file
from conveyor.cli.exit_codes import ExitCode, for_http_status
from conveyor.cli.rest_client import ConnectRestClient, RestError, WorkerUnreachable
from conveyor.cli.rest_options import RestClientSettings, rest_client_options
from conveyor.cli.status_view import failed, state_text, status_table
from conveyor.errors import ConfigError

F = TypeVar("F", bound=Callable[..., Any])

OUTPUTS = ("table", "json")


def rest_command(function: F) -> F:
    """Give a command the worker's address and credentials (`--url`, `--user`, `--password`, `--ca-file`,
    `--client-cert`) and `--output`, a client for the worker, and exit codes for its errors."""

    @rest_client_options
    @click.option(
        "--output",
        "-o",
        type=click.Choice(OUTPUTS),
        default="table",
        show_default=True,
        help="table for people, json (the REST API's bodies) for scripts.",
    )
    @functools.wraps(function)
    def wrapper(rest: RestClientSettings, output: str, **kwargs: Any) -> None:
        client = ConnectRestClient(rest.url, http=rest.client())
        try:
            code = function(client, Output(output == "json"), **kwargs)
        except WorkerUnreachable as error:
            _fail(str(error), ExitCode.UNREACHABLE)
        except RestError as error:
            _fail(f"{error.message} (HTTP {error.status})", for_http_status(error.status))
        except ConfigError as error:
            _fail(str(error), ExitCode.ERROR)
        finally:
            client.close()
        raise SystemExit(int(code or ExitCode.OK))

    return cast(F, wrapper)


def input_file_option(help_text: str) -> Callable[[F], F]:
    """`--file`/`-f`: a file the command reads, which must exist (passed as `path`)."""
    option: Callable[[F], F] = click.option(
        "--file",
        "-f",
        "path",
        required=True,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help=help_text,
    )
    return option


def _fail(message: str, code: ExitCode) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    raise SystemExit(int(code))


class Output:
    """Prints a result as a rich table or message, or as JSON."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.console = Console(soft_wrap=False)

    def show(self, body: Any, table: Callable[[], Table | Text | str]) -> None:
        if self.as_json:
            click.echo(json.dumps(body, indent=2, sort_keys=False))
        else:
            self.console.print(table())

    def done(self, name: str, action: str, message: str) -> None:
        self.show({"name": name, "action": action}, lambda: message)


@click.group()
def connectors() -> None:
    """List, inspect, create and control the connectors of a worker's cluster."""


@connectors.command("list")
@rest_command
def list_connectors(client: ConnectRestClient, output: Output) -> ExitCode:
    """Every connector with its type, state and tasks."""
    body = client.connectors()

    def table() -> Table:
        rows = Table(title="Connectors")
        for column in ("name", "type", "state", "tasks", "worker", "class"):
            rows.add_column(column, overflow="fold")
        for name, entry in sorted(body.items()):
            status, info = entry.get("status", {}), entry.get("info", {})
            tasks = status.get("tasks", [])
            running = sum(1 for task in tasks if task["state"] == "RUNNING")
            rows.add_row(
                name,
                status.get("type", info.get("type", "")),
                state_text(status.get("connector", {}).get("state", "")),
                f"{running}/{len(tasks)} running",
                status.get("connector", {}).get("worker_id", ""),
                info.get("config", {}).get("connector.class", ""),
            )
        return rows

    output.show(body, table)
    return ExitCode.OK


@connectors.command("status")
@click.argument("name")
@rest_command
def connector_status(client: ConnectRestClient, output: Output, name: str) -> ExitCode:
    """A connector's state and its tasks', with the reason of any failure; exits 8 if one FAILED."""
    body = client.status(name)
    output.show(body, lambda: status_table([body], title=f"{name} ({body.get('type', '')})"))
    return ExitCode.FAILED if failed([body]) else ExitCode.OK


@connectors.command("create")
@input_file_option(
    "The connector's config: a .json file ({name, config} or a flat map) or a .properties file."
)
@click.option(
    "--resume-offsets",
    is_flag=True,
    help="Carry on from the offsets a deleted connector of the same name left (by default they are reset).",
)
@rest_command
def create_connector(client: ConnectRestClient, output: Output, path: Path, resume_offsets: bool) -> ExitCode:
    """Create a connector from a config file."""
    name, config = read_connector_file(path)
    body = client.create(name, config, resume_offsets=resume_offsets)
    tasks = len(body.get("tasks", []))
    output.show(body, lambda: f"Created connector {name} ({body.get('type', 'unknown')}, {tasks} tasks)")
    return ExitCode.OK


def _action(verb: str, past: str, call: Callable[[ConnectRestClient, str], None], help_text: str) -> None:
    @connectors.command(verb, help=help_text)
    @click.argument("name")
    @rest_command
    def command(client: ConnectRestClient, output: Output, name: str) -> ExitCode:
        call(client, name)
        output.done(name, past, f"{past.capitalize()} connector {name}")
        return ExitCode.OK


_action("pause", "paused", ConnectRestClient.pause, "Pause a connector and its tasks.")
_action("resume", "resumed", ConnectRestClient.resume, "Resume a paused or stopped connector.")
_action("stop", "stopped", ConnectRestClient.stop, "Stop a connector: its tasks are shut down (KIP-875).")
_action("delete", "deleted", ConnectRestClient.delete, "Delete a connector and its tasks.")


@connectors.command("restart")
@click.argument("name")
@click.option("--tasks", "include_tasks", is_flag=True, help="Restart the connector's tasks too.")
@click.option("--only-failed", is_flag=True, help="Restart only the instances that FAILED.")
@rest_command
def restart_connector(
    client: ConnectRestClient, output: Output, name: str, include_tasks: bool, only_failed: bool
) -> ExitCode:
    """Restart a connector (and with --tasks its tasks; with --only-failed only the failed ones)."""
    body = client.restart(name, include_tasks, only_failed)
    if body is None:
        output.done(name, "restarted", f"Restarted connector {name}")
    else:
        output.show(body, lambda: status_table([body], title=f"Restarting {name}"))
    return ExitCode.OK


def compact(value: Any) -> str:
    """A JSON value on one line, keys sorted: how tables show partitions and offsets."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@click.command()
@click.option("--all", "all_plugins", is_flag=True, help="Transforms, predicates and converters too.")
@rest_command
def plugins(client: ConnectRestClient, output: Output, all_plugins: bool) -> ExitCode:
    """The plugins the worker can run."""
    body = client.plugins(connectors_only=not all_plugins)

    def table() -> Table:
        rows = Table(title="Plugins")
        for column in ("class", "type", "version"):
            rows.add_column(column, overflow="fold")
        for plugin in body:
            rows.add_row(plugin["class"], plugin["type"], plugin.get("version", ""))
        return rows

    output.show(body, table)
    return ExitCode.OK


@click.command()
@click.option("--watch", "-w", is_flag=True, help="Keep the table on screen, refreshed, until Ctrl-C.")
@click.option("--interval", default=2.0, show_default=True, help="Seconds between refreshes with --watch.")
@click.option(
    "--count", default=0, show_default=True, help="With --watch: refreshes before exiting; 0 = until Ctrl-C."
)
@rest_command
def status(client: ConnectRestClient, output: Output, watch: bool, interval: float, count: int) -> ExitCode:
    """Every connector and task of the cluster; exits 8 if one FAILED. With --watch, live."""
    if watch:
        return _watch(client, output, interval, count)
    statuses = _statuses(client)
    output.show({s["name"]: s for s in statuses}, lambda: status_table(statuses, title=client.url))
    return ExitCode.FAILED if failed(statuses) else ExitCode.OK


def _statuses(client: ConnectRestClient) -> list[dict[str, Any]]:
    return [entry["status"] for _, entry in sorted(client.connectors().items()) if "status" in entry]


def _watch(client: ConnectRestClient, output: Output, interval: float, count: int) -> ExitCode:
    """Redraw until interrupted; a worker that stops answering shows as an error line, not an exit."""

    def view() -> Group | Table:
        stamp = Text(time.strftime("%H:%M:%S"), style="dim")
        try:
            return Group(status_table(_statuses(client), title=client.url), stamp)
        except (WorkerUnreachable, RestError) as error:
            return Group(Text(f"Error: {error}", style="bold red"), stamp)

    try:
        with Live(view(), console=output.console, refresh_per_second=4) as live:
            refreshes = 1
            while count <= 0 or refreshes < count:
                time.sleep(interval)
                live.update(view())
                refreshes += 1
    except KeyboardInterrupt:
        pass
    return ExitCode.OK


def add_operator_commands(main: click.Group) -> None:
    main.add_command(connectors)
    main.add_command(plugins)
    main.add_command(status)
