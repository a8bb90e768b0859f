"""How the REST API shows a connector's or task's state, as Kafka Connect 4.x's `ConnectorStateInfo` does."""

from __future__ import annotations

from conveyor.herder.entities import ConnectorState, TaskState


def test_a_state_shows_its_plugin_version() -> None:
    assert TaskState("RUNNING", "w:8083", None, "4.3.1", id=2).to_json() == {
        "id": 2,
        "state": "RUNNING",
        "worker_id": "w:8083",
        "version": "4.3.1",
    }


def test_an_unknown_version_is_shown_as_null() -> None:
    assert ConnectorState("UNASSIGNED", "w:8083").to_json() == {
        "state": "UNASSIGNED",
        "worker_id": "w:8083",
        "version": None,
    }


def test_an_undefined_version_is_left_out() -> None:
    assert ConnectorState("RUNNING", "w:8083", version="undefined").to_json() == {
        "state": "RUNNING",
        "worker_id": "w:8083",
    }
