"""`conveyor apply` against a group of three workers over HTTP: plan, check, apply, again, prune."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tests.herder.distributed.cluster import Member, followers_of, group
from tests.waiting import wait_until

from conveyor.cli import main
from conveyor.cli.exit_codes import ExitCode

GENERATOR = "GeneratorSourceConnector"


@pytest.fixture(scope="module")
def members(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Member]]:
    with group(tmp_path_factory.mktemp("apply"), 3) as members:
        yield members


def apply(member: Member, path: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["apply", "-f", str(path), *args], env={"CONVEYOR_URL": member.url, "COLUMNS": "200"}
    )


def settled(member: Member, expected: dict[str, str]) -> bool:
    """Every named connector shows the state it is asked to be in."""
    for name, state in expected.items():
        response = member.http("GET", f"/connectors/{name}/status")
        if response.status_code != 200 or response.json()["connector"]["state"] != state:
            return False
    return True


def write_files(directory: Path, rate: str = "5", paused_state: str = "paused") -> None:
    """Two connectors, gen-a (running, with a secret) and gen-b (paused), as the only files there."""
    directory.mkdir(exist_ok=True)
    (directory / "gen-a.json").write_text(
        json.dumps(
            {
                "name": "gen-a",
                "config": {
                    "connector.class": GENERATOR,
                    "topic": "a",
                    "rate": rate,
                    "secret.token": f"s3cret-{rate}",
                },
            }
        )
    )
    (directory / "gen-b.yaml").write_text(
        f"name: gen-b\nstate: {paused_state}\nconfig:\n  connector.class: {GENERATOR}\n  topic: b\n"
    )


def connectors(member: Member) -> list[str]:
    names: list[str] = member.http("GET", "/connectors").json()
    return sorted(names)


def test_a_directory_of_files_is_planned_checked_applied_and_then_in_step(
    members: list[Member], tmp_path: Path
) -> None:
    follower = followers_of(members)[0]
    files = tmp_path / "connectors"
    write_files(files)
    for name in connectors(follower):
        wait_until(lambda n=name: follower.http("DELETE", f"/connectors/{n}").status_code == 204, "deleted")

    wait_until(lambda: connectors(follower) == [], "no connector left")
    planned = apply(follower, files, "--output", "json")
    assert planned.exit_code == ExitCode.OK, planned.output
    assert json.loads(planned.output)["create"] == ["gen-a", "gen-b"]
    assert connectors(follower) == []
    assert apply(follower, files, "--check").exit_code == ExitCode.DRIFT

    applied = apply(follower, files, "--yes")
    assert applied.exit_code == ExitCode.OK, applied.output
    wait_until(lambda: settled(follower, {"gen-a": "RUNNING", "gen-b": "PAUSED"}), "both as the files say")
    again = wait_until(
        lambda: (r := apply(members[0], files, "--check")).exit_code == ExitCode.OK and r,
        "another worker in step with the files too",
    )
    assert "Nothing to do" in again.output


def test_a_change_shows_each_key_with_secrets_hidden_and_moves_the_state(
    members: list[Member], tmp_path: Path
) -> None:
    files = tmp_path / "connectors"
    write_files(files)
    assert apply(members[0], files, "--yes").exit_code == ExitCode.OK
    wait_until(lambda: settled(members[1], {"gen-a": "RUNNING", "gen-b": "PAUSED"}), "applied")
    wait_until(lambda: members[1].http("GET", "/connectors/gen-a/config").json()["rate"] == "5", "rate 5")
    write_files(files, rate="7", paused_state="stopped")

    planned = apply(members[1], files, "--output", "json")
    change: dict[str, Any] = json.loads(planned.output)["change"]
    assert change["gen-a"]["config"] == {
        "rate": {"before": "5", "after": "7"},
        "secret.token": {"before": "[hidden]", "after": "[hidden]"},
    }
    assert change["gen-b"]["state"] == {"before": "paused", "after": "stopped"}
    assert "s3cret" not in apply(members[1], files).output

    assert apply(members[1], files, "--yes").exit_code == ExitCode.OK
    wait_until(lambda: settled(members[1], {"gen-b": "STOPPED"}), "gen-b stopped")
    wait_until(
        lambda: members[1].http("GET", "/connectors/gen-a/config").json()["rate"] == "7",
        "the new config read by the worker asked (a follower reads the config topic on its own)",
    )


def test_prune_deletes_what_no_file_names(members: list[Member], tmp_path: Path) -> None:
    files = tmp_path / "connectors"
    write_files(files)
    assert apply(members[0], files, "--yes").exit_code == ExitCode.OK
    extra = {"name": "by-hand", "config": {"connector.class": GENERATOR, "topic": "h"}}
    wait_until(lambda: members[0].http("POST", "/connectors", extra).status_code == 201, "created by hand")
    without_prune = apply(members[0], files, "--yes")
    assert without_prune.exit_code == ExitCode.OK
    assert "by-hand" in connectors(members[0])
    wait_until(lambda: "by-hand" in connectors(members[2]), "by-hand known to the worker asked to prune")
    pruned = apply(members[2], files, "--yes", "--prune")
    assert pruned.exit_code == ExitCode.OK, pruned.output
    wait_until(lambda: "by-hand" not in connectors(members[0]), "by-hand deleted")
    assert connectors(members[0]) == ["gen-a", "gen-b"]
