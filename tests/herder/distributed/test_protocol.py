"""Kafka Connect's group protocol messages, byte for byte.

The fixed vectors below are written out by hand from Kafka's schemas (`ConnectProtocol`,
`IncrementalCooperativeConnectProtocol`): int16 version header, then the struct's fields in order;
STRING = int16 length + UTF-8; INT16/INT32/INT64 big-endian; ARRAY = int32 count + elements (-1 = null);
NULLABLE_BYTES = int32 length + bytes (-1 = null). A connector assignment is
{connector: STRING, tasks: ARRAY(INT32)} where task -1 is the connector instance itself.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.errors import ConfigError
from conveyor.herder.distributed.protocol import (
    CONFIG_MISMATCH,
    ConnectAssignment,
    ConnectProtocol,
    ConnectProtocolCompatibility,
    IncrementalConnectProtocol,
    ProtocolError,
    WorkerMetadata,
    decode_assignment,
    decode_metadata,
    decode_version,
    encode_assignment,
    encode_metadata,
    join_protocols,
)
from conveyor.runtime.task_spec import TaskId

EAGER = ConnectProtocolCompatibility.EAGER
COMPATIBLE = ConnectProtocolCompatibility.COMPATIBLE
SESSIONED = ConnectProtocolCompatibility.SESSIONED


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# -- the modes --------------------------------------------------------------------------------------


def test_modes_are_named_as_connect_protocol_names_them_with_their_subprotocols_and_versions() -> None:
    assert [(m.config_name, m.subprotocol, m.version) for m in ConnectProtocolCompatibility] == [
        ("eager", "default", 0),
        ("compatible", "compatible", 1),
        ("sessioned", "sessioned", 2),
    ]


def test_modes_are_found_by_config_name_subprotocol_or_version() -> None:
    assert ConnectProtocolCompatibility.from_config("Sessioned") is SESSIONED
    assert ConnectProtocolCompatibility.from_subprotocol("default") is EAGER
    assert ConnectProtocolCompatibility.from_version(1) is COMPATIBLE
    with pytest.raises(ConfigError, match="Unknown Connect protocol compatibility mode: cooperative"):
        ConnectProtocolCompatibility.from_config("cooperative")


def test_a_worker_offers_its_mode_and_every_older_one_most_preferred_first() -> None:
    metadata = WorkerMetadata("http://w1:8083", 4)
    assert [name for name, _ in join_protocols(metadata, SESSIONED)] == ["sessioned", "compatible", "default"]
    assert [name for name, _ in join_protocols(metadata, COMPATIBLE)] == ["compatible", "default"]
    assert [name for name, _ in join_protocols(metadata, EAGER)] == ["default"]


def test_each_offered_subprotocol_carries_metadata_of_its_own_version() -> None:
    offered = join_protocols(WorkerMetadata("u", 1), SESSIONED)
    assert [decode_version(data) for _, data in offered] == [2, 1, 0]


# -- fixed vectors ------------------------------------------------------------------------------------


def test_version_0_metadata_is_the_header_the_url_and_the_config_offset() -> None:
    data = ConnectProtocol.encode_metadata(WorkerMetadata("http://w1:8083", 7))
    assert data == hx("0000000e" + b"http://w1:8083".hex() + "0000000000000007")


def test_version_1_metadata_of_a_worker_without_assignment_ends_with_null_allocation_bytes() -> None:
    data = IncrementalConnectProtocol.encode_metadata(WorkerMetadata("u", 7), sessioned=False)
    assert data == hx("00010001 750000000000000007ffffffff")


def test_version_0_assignment_lists_the_connector_instance_as_task_minus_one_before_its_tasks() -> None:
    assignment = ConnectAssignment(
        leader="l1",
        leader_url="u",
        config_offset=3,
        connectors=["a"],
        tasks=[TaskId("a", 0), TaskId("a", 1), TaskId("b", 2)],
    )
    assert ConnectProtocol.encode_assignment(assignment) == hx(
        "0000"  # version 0
        "0000"  # error NO_ERROR
        "0002 6c31"  # leader "l1"
        "0001 75"  # leader url "u"
        "0000000000000003"  # config offset
        "00000002"  # two connector entries
        "0001 61"  # connector "a"
        "00000003 ffffffff 00000000 00000001"  # its 3 task numbers: instance, 0, 1
        "0001 62"  # connector "b"
        "00000001 00000002"  # its 1 task number: 2
    )


def test_version_2_assignment_appends_the_revoked_entries_and_the_delay() -> None:
    assignment = ConnectAssignment(
        leader="l",
        leader_url="u",
        config_offset=9,
        tasks=[TaskId("a", 1)],
        revoked_connectors=["b"],
        revoked_tasks=[TaskId("b", 0)],
        delay_ms=5000,
    )
    assert IncrementalConnectProtocol.encode_assignment(assignment, sessioned=True) == hx(
        "0002"  # version 2
        "0000"  # error NO_ERROR
        "0001 6c"  # leader "l"
        "0001 75"  # leader url "u"
        "0000000000000009"  # config offset
        "00000001"  # assigned: one connector entry
        "0001 61"  # connector "a"
        "00000001 00000001"  # its 1 task number: 1
        "00000001"  # revoked: one connector entry
        "0001 62"  # connector "b"
        "00000002 ffffffff 00000000"  # its 2 task numbers: instance, 0
        "00001388"  # delay 5000
    )


def test_version_1_metadata_embeds_the_current_assignment_as_versioned_bytes() -> None:
    current = ConnectAssignment(leader="l", leader_url="u", config_offset=2, connectors=["a"])
    allocation = hx(
        "0001"  # version 1
        "0000"  # error NO_ERROR
        "0001 6c"  # leader "l"
        "0001 75"  # leader url "u"
        "0000000000000002"  # config offset
        "00000001"  # assigned: one connector entry
        "0001 61"  # connector "a"
        "00000001 ffffffff"  # its 1 task number: instance
        "00000000"  # nothing revoked
        "00000000"  # no delay
    )
    data = IncrementalConnectProtocol.encode_metadata(WorkerMetadata("w", 2, current), sessioned=False)
    header = hx(
        "0001"  # version 1
        "0001 77"  # url "w"
        "0000000000000002"  # config offset
    )
    assert data == header + len(allocation).to_bytes(4, "big") + allocation


def test_a_version_0_assignment_reads_as_one_without_revocations_or_delay() -> None:
    data = hx("000000010001 6c0001 75000000000000000400000000")
    assert decode_assignment(data) == ConnectAssignment(
        leader="l", leader_url="u", config_offset=4, error=CONFIG_MISMATCH
    )


def test_version_0_metadata_reads_as_a_worker_without_assignment() -> None:
    assert decode_metadata(hx("00000001 75000000000000000a")) == WorkerMetadata("u", 10, None)


def test_a_later_version_is_read_as_far_as_its_known_fields_go() -> None:
    data = hx("00030001 75000000000000000affffffffdeadbeef")
    assert decode_metadata(data) == WorkerMetadata("u", 10, None)


def test_a_negative_version_is_refused() -> None:
    with pytest.raises(ProtocolError, match="Unsupported subscription version: -1"):
        decode_metadata(hx("ffff0001 75000000000000000a"))


def test_truncated_bytes_are_refused() -> None:
    with pytest.raises(ProtocolError):
        decode_metadata(hx("00000005 75"))


def test_an_eager_assignment_cannot_carry_revocations() -> None:
    with pytest.raises(ProtocolError, match="no revocations"):
        encode_assignment(ConnectAssignment("l", "u", 0, revoked_connectors=["a"]), EAGER)


# -- round trips ----------------------------------------------------------------------------------------

names = st.text(min_size=0, max_size=12)
task_numbers = st.lists(st.integers(min_value=0, max_value=2**31 - 1), max_size=4, unique=True)


@st.composite
def canonical_parts(draw: st.DrawFn) -> tuple[list[str], list[TaskId]]:
    """Connectors and tasks in the order the wire keeps: each connector's instance, then its tasks."""
    per_connector = draw(st.dictionaries(names, task_numbers, max_size=4))
    connectors = list(per_connector)
    tasks = [TaskId(c, n) for c, numbers in per_connector.items() for n in numbers]
    return connectors, tasks


@st.composite
def assignments(draw: st.DrawFn, incremental: bool = True) -> ConnectAssignment:
    connectors, tasks = draw(canonical_parts())
    revoked_connectors, revoked_tasks = draw(canonical_parts()) if incremental else ([], [])
    return ConnectAssignment(
        leader=draw(names),
        leader_url=draw(names),
        config_offset=draw(st.integers(min_value=-(2**63), max_value=2**63 - 1)),
        connectors=connectors,
        tasks=tasks,
        revoked_connectors=revoked_connectors,
        revoked_tasks=revoked_tasks,
        delay_ms=draw(st.integers(min_value=0, max_value=2**31 - 1)) if incremental else 0,
        error=draw(st.sampled_from([0, 1])),
    )


@given(assignments(), st.sampled_from([COMPATIBLE, SESSIONED]))
def test_an_incremental_assignment_round_trips(
    assignment: ConnectAssignment, mode: ConnectProtocolCompatibility
) -> None:
    data = encode_assignment(assignment, mode)
    assert decode_version(data) == mode.version
    assert decode_assignment(data) == assignment


@given(assignments(incremental=False))
def test_an_eager_assignment_round_trips(assignment: ConnectAssignment) -> None:
    assert decode_assignment(encode_assignment(assignment, EAGER)) == assignment


@given(names, st.integers(min_value=-(2**63), max_value=2**63 - 1), st.none() | assignments())
def test_metadata_round_trips_in_every_mode(url: str, offset: int, current: ConnectAssignment | None) -> None:
    metadata = WorkerMetadata(url, offset, current)
    assert decode_metadata(encode_metadata(metadata, SESSIONED)) == metadata
    assert decode_metadata(encode_metadata(metadata, COMPATIBLE)) == metadata
    assert decode_metadata(encode_metadata(metadata, EAGER)) == WorkerMetadata(url, offset, None)


@given(
    st.lists(names, max_size=5),
    st.lists(st.builds(TaskId, names, st.integers(min_value=0, max_value=9)), max_size=8),
)
def test_connectors_and_tasks_in_any_order_come_back_grouped_by_connector(
    connectors: list[str], tasks: list[TaskId]
) -> None:
    assignment = ConnectAssignment("l", "u", 0, connectors, tasks)
    decoded = decode_assignment(encode_assignment(assignment, SESSIONED))
    assert decoded.connectors == list(dict.fromkeys(connectors))
    assert sorted(decoded.tasks, key=lambda t: (t.connector, t.task)) == sorted(
        tasks, key=lambda t: (t.connector, t.task)
    )
