"""`conveyor apply`'s plan: files against what a cluster answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conveyor.cli.apply_plan import KeyChange, make_plan
from conveyor.cli.connector_files import ConnectorFile, read_connector_spec
from conveyor.errors import ConfigError

GENERATOR = {"connector.class": "GeneratorSourceConnector", "topic": "t"}


def wanted(name: str, state: str = "running", **config: str) -> ConnectorFile:
    return ConnectorFile(Path(f"{name}.json"), name, {**GENERATOR, **config}, state)


def cluster_entry(name: str, state: str = "RUNNING", **config: str) -> dict[str, Any]:
    return {
        "info": {"config": {**GENERATOR, **config, "name": name}},
        "status": {"connector": {"state": state}},
    }


def test_a_connector_the_cluster_lacks_is_created() -> None:
    plan = make_plan([wanted("a")], {}, prune=False)
    assert [c.name for c in plan.creates] == ["a"] and plan.drift


def test_a_connector_as_the_file_says_is_unchanged() -> None:
    plan = make_plan([wanted("a")], {"a": cluster_entry("a")}, prune=False)
    assert plan.unchanged == ["a"] and not plan.drift


def test_a_changed_key_is_listed_with_its_values_before_and_after() -> None:
    plan = make_plan([wanted("a", rate="5")], {"a": cluster_entry("a", rate="1", extra="x")}, prune=False)
    (change,) = plan.changes
    assert change.keys == [KeyChange("extra", "x", None), KeyChange("rate", "1", "5")]


@pytest.mark.parametrize(
    ("status", "state", "drift"),
    [("FAILED", "running", False), ("PAUSED", "paused", False), ("RUNNING", "stopped", True)],
)
def test_the_state_compared_is_the_state_asked_for(status: str, state: str, drift: bool) -> None:
    plan = make_plan([wanted("a", state)], {"a": cluster_entry("a", status)}, prune=False)
    assert plan.drift is drift


def test_connectors_no_file_names_are_deleted_only_with_prune() -> None:
    actual = {"a": cluster_entry("a"), "b": cluster_entry("b")}
    assert make_plan([wanted("a")], actual, prune=False).deletes == []
    assert make_plan([wanted("a")], actual, prune=True).deletes == ["b"]


def test_a_yaml_file_gives_config_state_and_offsets(tmp_path: Path) -> None:
    path = tmp_path / "orders.yaml"
    path.write_text(
        "name: orders\nstate: Paused\nconfig:\n  connector.class: FileStreamSource\n  tasks.max: 2\n"
        "  enabled: true\noffsets:\n  - partition: {filename: /in.txt}\n    offset: {position: 6}\n"
    )
    spec = read_connector_spec(path)
    assert (spec.name, spec.state) == ("orders", "paused")
    assert spec.config == {"connector.class": "FileStreamSource", "tasks.max": "2", "enabled": "true"}
    assert spec.offsets == [{"partition": {"filename": "/in.txt"}, "offset": {"position": 6}}]


def test_an_unknown_state_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"name": "x", "config": {}, "state": "sleeping"}')
    with pytest.raises(ConfigError, match=r"x\.json: state must be one of"):
        read_connector_spec(path)
