"""The eager assignor deals every connector, then every task, round-robin over the sorted members."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conveyor.herder.distributed.eager_assignor import eager_assignment
from conveyor.herder.distributed.protocol import CONFIG_MISMATCH, NO_ERROR, ConnectAssignment
from conveyor.runtime.task_spec import TaskId

from .support import config_of, member, tasks, url


def test_connectors_are_dealt_first_then_tasks_continuing_the_same_round() -> None:
    members = {"w2": member("w2"), "w1": member("w1"), "w3": member("w3")}
    result = eager_assignment("w1", members, config_of({"b": 2, "a": 2}))

    assert result.assignments == {
        "w1": ConnectAssignment("w1", url("w1"), 10, ["a"], [TaskId("a", 1)]),
        "w2": ConnectAssignment("w1", url("w1"), 10, ["b"], [TaskId("b", 0)]),
        "w3": ConnectAssignment("w1", url("w1"), 10, [], [TaskId("a", 0), TaskId("b", 1)]),
    }


def test_every_member_learns_the_leader_its_url_and_the_newest_config_offset() -> None:
    members = {"w1": member("w1", offset=12), "w2": member("w2", offset=10)}
    result = eager_assignment("w2", members, config_of({"a": 1}, offset=12))

    assert {(a.leader, a.leader_url, a.config_offset, a.error) for a in result.assignments.values()} == {
        ("w2", url("w2"), 12, NO_ERROR)
    }


def test_a_leader_behind_a_member_sends_config_mismatch_and_no_work() -> None:
    members = {"w1": member("w1", offset=10), "w2": member("w2", offset=15)}
    result = eager_assignment("w1", members, config_of({"a": 3}, offset=10), lambda: config_of({"a": 3}, 14))

    assert result.failed
    assert result.assignments["w2"] == ConnectAssignment("w1", url("w1"), 15, error=CONFIG_MISMATCH)


def test_a_leader_that_catches_up_with_a_fresh_snapshot_assigns_from_it() -> None:
    members = {"w1": member("w1", offset=10), "w2": member("w2", offset=15)}
    fresh = config_of({"a": 1, "b": 0}, offset=16)
    result = eager_assignment("w1", members, config_of({"a": 1}, offset=10), lambda: fresh)

    assert result.config is fresh
    assert result.assignments["w1"] == ConnectAssignment("w1", url("w1"), 16, ["a"], [TaskId("a", 0)])
    assert result.assignments["w2"] == ConnectAssignment("w1", url("w1"), 16, ["b"], [])


def test_what_members_ran_before_does_not_matter() -> None:
    members = {"w1": member("w1", running=tasks("a", [0, 1])), "w2": member("w2")}
    result = eager_assignment("w1", members, config_of({"a": 2}))

    assert result.assignments["w1"].tasks == [TaskId("a", 1)]
    assert result.assignments["w2"].tasks == [TaskId("a", 0)]


def test_an_inconsistent_connector_is_assigned_without_tasks() -> None:
    config = config_of({"a": 2})
    config = type(config)(**{**config.__dict__, "inconsistent_connectors": frozenset({"a"})})
    result = eager_assignment("w1", {"w1": member("w1")}, config)

    assert result.assignments["w1"].connectors == ["a"]
    assert result.assignments["w1"].tasks == []


@given(
    st.sets(st.text(min_size=1, max_size=4), min_size=1, max_size=6),
    st.dictionaries(st.text(min_size=1, max_size=4), st.integers(min_value=0, max_value=6), max_size=6),
)
def test_each_connector_and_task_goes_to_exactly_one_member_and_loads_differ_by_at_most_one(
    member_ids: set[str], task_counts: dict[str, int]
) -> None:
    members = {m: member(m) for m in member_ids}
    result = eager_assignment(min(member_ids), members, config_of(task_counts))

    dealt = [c for a in result.assignments.values() for c in a.connectors]
    dealt_tasks = [t for a in result.assignments.values() for t in a.tasks]
    assert sorted(dealt) == sorted(task_counts)
    assert sorted(dealt_tasks, key=str) == sorted(
        (TaskId(c, n) for c, count in task_counts.items() for n in range(count)), key=str
    )
    loads = [len(a.connectors) + len(a.tasks) for a in result.assignments.values()]
    assert max(loads) - min(loads) <= 1


def test_member_ids_are_sorted_as_java_sorts_strings_by_utf16_code_unit() -> None:
    supplementary, last_bmp = "w\U00010000", "w\uffff"  # UTF-16: w D800 DC00 < w FFFF
    members = {last_bmp: member(last_bmp), supplementary: member(supplementary)}

    result = eager_assignment(last_bmp, members, config_of({"a": 0}))

    assert result.assignments[supplementary].connectors == ["a"]
