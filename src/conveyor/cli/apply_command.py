"""`conveyor apply -f PATH`: make a cluster hold the connectors a directory of files describes.

Without `--yes` it prints the plan and changes nothing; `--check` exits 9 when the cluster differs
from the files (for CI); `--prune` deletes connectors no file names. Safe to run again and again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click
from rich.table import Table
from rich.text import Text

from conveyor.cli.apply_plan import Change, Plan, make_plan, secret_keys, shown, steps
from conveyor.cli.connector_files import connector_files, read_connector_spec
from conveyor.cli.exit_codes import ExitCode
from conveyor.cli.operator_commands import Output, rest_command
from conveyor.cli.rest_client import ConnectRestClient, RestError
from conveyor.errors import ConfigError

T = TypeVar("T")

#: How long a step is retried while the cluster rebalances (409).
REBALANCE_WAIT_S = 60.0


@click.command("apply")
@click.option(
    "--file",
    "-f",
    "path",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="A connector file (.json, .yaml, .properties) or a directory of them.",
)
@click.option("--yes", "-y", is_flag=True, help="Carry the plan out (without it, only show it).")
@click.option("--prune", is_flag=True, help="Delete the connectors that no file names.")
@click.option("--check", is_flag=True, help="Change nothing; exit 9 if the cluster differs from the files.")
@rest_command
def apply(
    client: ConnectRestClient, output: Output, path: Path, yes: bool, prune: bool, check: bool
) -> ExitCode:
    """Create, change (and with --prune delete) connectors so that the cluster matches the files."""
    desired = [read_connector_spec(file) for file in connector_files(path)]
    names = [wanted.name for wanted in desired]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ConfigError(f"Several files under {path} name the connector(s) {', '.join(duplicated)}")
    plan = _through_rebalances(lambda: make_plan(desired, client.every_connector(), prune))
    hidden = _through_rebalances(
        lambda: {change.desired.name: secret_keys(client, change.desired.config) for change in plan.changes}
    )
    output.show(_plan_body(plan, hidden), lambda: _plan_table(plan, hidden))
    if check:
        return ExitCode.DRIFT if plan.drift else ExitCode.OK
    if not yes or not plan.drift:
        return ExitCode.OK
    for step in steps(plan, client):
        _through_rebalances(step.run)
        if not output.as_json:
            output.console.print(f"[green]done[/green] {step.describe}")
    return ExitCode.OK


def _plan_body(plan: Plan, hidden: dict[str, set[str]]) -> dict[str, object]:
    def config(change: Change) -> dict[str, dict[str, str]]:
        secret = hidden[change.desired.name]
        return {
            key.key: {
                "before": shown(key.before, key.key in secret),
                "after": shown(key.after, key.key in secret),
            }
            for key in change.keys
        }

    return {
        "create": [wanted.name for wanted in plan.creates],
        "change": {
            change.desired.name: {
                "config": config(change),
                "state": {"before": change.state_before, "after": change.desired.state},
            }
            for change in plan.changes
        },
        "unchanged": plan.unchanged,
        "delete": plan.deletes,
    }


def _plan_table(plan: Plan, hidden: dict[str, set[str]]) -> Table | Text:
    if not plan.drift:
        return Text(f"Nothing to do: {len(plan.unchanged)} connector(s) as the files say.")
    rows = Table(title="Plan")
    for column in ("connector", "action", "what"):
        rows.add_column(column, overflow="fold")
    for wanted in plan.creates:
        at = f", at {len(wanted.offsets)} offsets" if wanted.offsets else ""
        rows.add_row(
            wanted.name,
            Text("create", style="green"),
            f"{wanted.config.get('connector.class', '')} ({wanted.state}{at})",
        )
    for change in plan.changes:
        secret = hidden[change.desired.name]
        what = [
            f"{key.key}: {shown(key.before, key.key in secret)} -> {shown(key.after, key.key in secret)}"
            for key in change.keys
        ]
        if change.state_before != change.desired.state:
            what.append(f"state: {change.state_before} -> {change.desired.state}")
        rows.add_row(change.desired.name, Text("change", style="yellow"), "\n".join(what))
    for name in plan.deletes:
        rows.add_row(name, Text("delete", style="red"), "")
    for name in plan.unchanged:
        rows.add_row(name, Text("unchanged", style="dim"), "")
    return rows


def _through_rebalances(action: Callable[[], T]) -> T:
    """Run `action`, again while the cluster answers 409 for a rebalance or a config change under way
    (never for a name taken)."""
    deadline = time.monotonic() + REBALANCE_WAIT_S
    while True:
        try:
            return action()
        except RestError as error:
            if error.status != 409 or "already exists" in error.message or time.monotonic() > deadline:
                raise
        time.sleep(0.5)
