"""In a group of Kafka Connect and Conveyor workers, a Conveyor leader keeps each connector's work on
members of a runtime that can run it: a Python-only connector on Conveyor workers, a Java class Conveyor
cannot load on Kafka Connect workers, and a connector both ship anywhere."""

from __future__ import annotations

from conveyor.herder.distributed.assignment import ConnectorsAndTasks, configured_work
from conveyor.herder.distributed.cooperative_assignor import CooperativeState, perform_task_assignment
from conveyor.herder.distributed.runtimes import Placement, Runtime, runtimes_of

from .support import config_of, tasks

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
JAVA_ONLY = "com.example.connect.OnlyInJavaSourceConnector"
MEMBERS = {"java-1": Runtime.KAFKA_CONNECT, "java-2": Runtime.KAFKA_CONNECT, "conveyor": Runtime.CONVEYOR}
CLASSES = {"python-gen": GENERATOR, "file": FILE_SOURCE, "java-only": JAVA_ONLY}


def placement() -> Placement:
    return Placement.of(MEMBERS, CLASSES.items())


def one_round(
    members: dict[str, ConnectorsAndTasks], task_counts: dict[str, int], state: CooperativeState | None = None
) -> tuple[dict[str, ConnectorsAndTasks], dict[str, ConnectorsAndTasks]]:
    """(assigned, revoked) per member for one round from `members`' current work."""
    result, _ = perform_task_assignment(
        state or CooperativeState(previous_generation=1),
        configured_work(config_of(task_counts)),
        members,
        1,
        2,
        0,
        0,
        placement(),
    )
    return result.assigned, result.revoked


def test_a_python_connector_runs_on_conveyor_a_kafka_file_connector_on_both_a_java_class_on_kafka() -> None:
    assert runtimes_of(GENERATOR) == {Runtime.CONVEYOR}
    assert runtimes_of(FILE_SOURCE) == {Runtime.CONVEYOR, Runtime.KAFKA_CONNECT}
    assert runtimes_of(JAVA_ONLY) == {Runtime.KAFKA_CONNECT}


def test_new_work_of_a_python_connector_goes_to_the_conveyor_member_only() -> None:
    empty = {name: ConnectorsAndTasks() for name in MEMBERS}
    assigned, _ = one_round(empty, {"python-gen": 4})
    assert assigned["conveyor"].connectors == ("python-gen",)
    assert set(assigned["conveyor"].tasks) == set(tasks("python-gen", range(4)))
    assert assigned["java-1"].is_empty() and assigned["java-2"].is_empty()


def test_new_work_of_a_java_only_connector_goes_to_kafka_connect_members_only() -> None:
    empty = {name: ConnectorsAndTasks() for name in MEMBERS}
    assigned, _ = one_round(empty, {"java-only": 4})
    assert assigned["conveyor"].is_empty()
    assert sorted(t.task for m in ("java-1", "java-2") for t in assigned[m].tasks) == [0, 1, 2, 3]


def test_a_connector_both_runtimes_ship_is_spread_over_every_member() -> None:
    empty = {name: ConnectorsAndTasks() for name in MEMBERS}
    assigned, _ = one_round(empty, {"file": 3})
    assert all(len(assigned[m].tasks) == 1 for m in MEMBERS)


def test_python_work_a_kafka_connect_member_runs_is_revoked_from_it() -> None:
    members = {
        "java-1": ConnectorsAndTasks.of(["python-gen"], tasks("python-gen", [0])),
        "java-2": ConnectorsAndTasks(),
        "conveyor": ConnectorsAndTasks.of([], tasks("python-gen", [1])),
    }
    _, revoked = one_round(members, {"python-gen": 2})
    assert revoked["java-1"].connectors == ("python-gen",)
    assert revoked["java-1"].tasks == (tasks("python-gen", [0])[0],)
    assert revoked["conveyor"].is_empty()


def test_python_work_is_never_revoked_from_the_conveyor_member_for_balance() -> None:
    members = {
        "java-1": ConnectorsAndTasks(),
        "java-2": ConnectorsAndTasks(),
        "conveyor": ConnectorsAndTasks.of(["python-gen"], tasks("python-gen", range(6))),
    }
    assigned, revoked = one_round(members, {"python-gen": 6})
    assert all(work.is_empty() for work in revoked.values())
    assert all(work.is_empty() for work in assigned.values())


def test_a_group_of_one_runtime_pins_nothing() -> None:
    conveyor_only = {"a": Runtime.CONVEYOR, "b": Runtime.CONVEYOR}
    assert Placement.of(conveyor_only, CLASSES.items()).allowed == {}
