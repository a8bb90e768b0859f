"""`conveyor offsets get|alter|reset|export|import`: a connector's offsets over the REST API (KIP-875),
and files that carry a connector and its position from one cluster to another.

An export file is `{"name", "config", "offsets"}`: the connector's config as `GET
/connectors/NAME/config` returns it and its offsets in the `PATCH /connectors/NAME/offsets` shape.
Importing it where the connector does not exist creates it at those offsets (KIP-995's
`initial_offsets`); where it exists, it must be STOPPED, and its offsets are altered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from conveyor.cli.exit_codes import ExitCode
from conveyor.cli.operator_commands import Output, compact, input_file_option, rest_command
from conveyor.cli.rest_client import ConnectRestClient
from conveyor.errors import ConfigError

STATES = ("running", "paused", "stopped")


@click.group()
def offsets() -> None:
    """Read, alter, reset, export and import a connector's offsets."""


@offsets.command("get")
@click.argument("name")
@rest_command
def get_offsets(client: ConnectRestClient, output: Output, name: str) -> ExitCode:
    """The connector's offsets: source partitions and offsets, or a sink's topic partitions."""
    entries = client.offsets(name)

    def table() -> Table:
        rows = Table(title=f"Offsets of {name}")
        rows.add_column("partition", overflow="fold")
        rows.add_column("offset", overflow="fold")
        for entry in entries:
            rows.add_row(compact(entry["partition"]), compact(entry["offset"]))
        return rows

    output.show({"offsets": entries}, table)
    return ExitCode.OK


@offsets.command("alter")
@click.argument("name")
@input_file_option("A PATCH /offsets body, its offsets list alone, or an export file.")
@rest_command
def alter_offsets(client: ConnectRestClient, output: Output, name: str, path: Path) -> ExitCode:
    """Give a STOPPED connector the offsets in a file."""
    return _answered(output, name, "altered", client.alter_offsets(name, read_offsets(path)))


@offsets.command("reset")
@click.argument("name")
@rest_command
def reset_offsets(client: ConnectRestClient, output: Output, name: str) -> ExitCode:
    """Forget the offsets of a STOPPED connector, so that it starts over when resumed."""
    return _answered(output, name, "reset", client.reset_offsets(name))


@offsets.command("export")
@click.argument("name")
@click.option(
    "--file",
    "-f",
    "path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the export (default: standard output).",
)
@rest_command
def export_offsets(client: ConnectRestClient, output: Output, name: str, path: Path | None) -> ExitCode:
    """Write the connector's config and offsets to a file that `conveyor offsets import` takes."""
    exported = {"name": name, "config": client.config(name), "offsets": client.offsets(name)}
    text = json.dumps(exported, indent=2) + "\n"
    if path is None:
        click.echo(text, nl=False)
        return ExitCode.OK
    path.write_text(text)
    count = len(exported["offsets"])
    output.show(
        {"name": name, "action": "exported", "file": str(path)},
        lambda: f"Exported {name} and {count} offsets to {path}",
    )
    return ExitCode.OK


@offsets.command("import")
@input_file_option("A file `conveyor offsets export` wrote.")
@click.option("--name", "new_name", help="Import under this name instead of the exported one.")
@click.option(
    "--state",
    type=click.Choice(STATES),
    default="running",
    show_default=True,
    help="The state a connector the import creates starts in.",
)
@rest_command
def import_offsets(
    client: ConnectRestClient, output: Output, path: Path, new_name: str | None, state: str
) -> ExitCode:
    """Create the exported connector at its offsets, or give an existing STOPPED one those offsets."""
    exported = _read_json(path)
    if not isinstance(exported, dict) or not isinstance(exported.get("config"), dict):
        raise ConfigError(f"{path}: not an export file: it has no connector config")
    name = new_name or str(exported.get("name") or "")
    if not name:
        raise ConfigError(f"{path}: the export names no connector; give one with --name")
    entries = read_offsets(path)
    if client.exists(name):
        return _answered(output, name, "altered", client.alter_offsets(name, entries))
    config = {str(key): str(value) for key, value in exported["config"].items()}
    config["name"] = name
    body = client.create(name, config, initial_state=state.upper(), initial_offsets=entries)
    output.show(body, lambda: f"Created connector {name} at {len(entries)} offsets ({state})")
    return ExitCode.OK


def _answered(output: Output, name: str, action: str, message: str) -> ExitCode:
    """Show the worker's answer to a change of the offsets of connector ``name``."""
    output.show({"name": name, "action": action, "message": message}, lambda: message)
    return ExitCode.OK


def read_offsets(path: Path) -> list[dict[str, Any]]:
    """The offsets in a PATCH body, an export file (``{"offsets": [...]}`` both) or a bare list."""
    body = _read_json(path)
    entries = body.get("offsets") if isinstance(body, dict) else body
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise ConfigError(f'{path}: expected {{"offsets": [{{"partition": ..., "offset": ...}}, ...]}}')
    return entries


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: not JSON: {error}") from error
