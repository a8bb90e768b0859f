"""The incremental cooperative assignor (KIP-415): members keep their work across rebalances; the leader
only revokes what must move, holds a departed member's work for the scheduled delay, and balances load
by revoking first and assigning in the follow-up rebalance."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conveyor.herder.distributed.cooperative_assignor import IncrementalCooperativeAssignor
from conveyor.herder.distributed.protocol import CONFIG_MISMATCH, ConnectAssignment
from conveyor.runtime.task_spec import TaskId

from .support import Group, config_of, member, tasks, url


def settled_group(task_counts: dict[str, int], *members: str, max_delay_ms: int = 10_000) -> Group:
    group = Group(config_of(task_counts), max_delay_ms)
    group.join(*members)
    group.settle()
    return group


def revoked_tasks(round_: dict[str, ConnectAssignment]) -> list[TaskId]:
    return [t for a in round_.values() for t in a.revoked_tasks]


def nothing_moves(round_: dict[str, ConnectAssignment]) -> bool:
    return all(
        not (a.connectors or a.tasks or a.revoked_connectors or a.revoked_tasks) for a in round_.values()
    )


def test_a_new_group_gets_connectors_and_tasks_dealt_to_the_least_loaded() -> None:
    group = Group(config_of({"a": 4}))
    group.join("w1", "w2")
    first = group.rebalance()

    assert first["w1"].connectors == ["a"] and first["w2"].connectors == []
    assert first["w1"].tasks == tasks("a", [0, 2])
    assert first["w2"].tasks == tasks("a", [1, 3])
    assert revoked_tasks(first) == []


def test_a_joining_worker_is_given_its_share_after_only_that_share_is_revoked_from_the_others() -> None:
    group = settled_group({"a": 8}, "w1", "w2")
    group.join("w3")

    revoking, follow_up, *rest = group.settle()

    assert revoking["w1"].revoked_tasks == [TaskId("a", 0)]
    assert revoking["w2"].revoked_tasks == [TaskId("a", 1)]
    assert all(not a.tasks and not a.connectors for a in revoking.values())
    assert follow_up["w3"].tasks == tasks("a", [0, 1])
    assert not follow_up["w1"].tasks and not follow_up["w2"].tasks
    assert revoked_tasks(follow_up) == []
    assert rest == []
    assert [len(group.tasks_of(w)) for w in ("w1", "w2", "w3")] == [3, 3, 2]


def test_a_departed_workers_work_is_held_back_for_the_scheduled_delay() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3", max_delay_ms=10_000)
    group.leave("w3")

    round_ = group.rebalance()

    assert nothing_moves(round_)
    assert {a.delay_ms for a in round_.values()} == {10_000}


def test_a_worker_back_within_the_delay_with_its_work_running_changes_nothing() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3")
    was_running = group.running["w3"]
    group.leave("w3")
    group.rebalance()
    group.now_ms += 3_000
    group.rejoin_with("w3", was_running)

    round_ = group.rebalance()

    assert nothing_moves(round_)
    assert {a.delay_ms for a in round_.values()} == {0}


def test_a_restarted_worker_back_within_the_delay_gets_exactly_its_old_work_when_the_delay_ends() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3")
    w3_tasks = group.tasks_of("w3")
    others = {w: group.tasks_of(w) for w in ("w1", "w2")}
    group.leave("w3")
    group.rebalance()
    group.now_ms += 3_000
    group.join("w3")

    waiting = group.rebalance()
    assert nothing_moves(waiting)
    assert {a.delay_ms for a in waiting.values()} == {7_000}

    group.now_ms += 7_000
    expired = group.rebalance()
    assert expired["w3"].tasks == w3_tasks
    assert {w: group.tasks_of(w) for w in ("w1", "w2")} == others
    assert revoked_tasks(expired) == []


def test_a_worker_away_past_the_delay_has_its_work_moved_to_the_others() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3")
    w3_tasks = group.tasks_of("w3")
    group.leave("w3")
    group.rebalance()
    group.now_ms += 10_000

    expired = group.rebalance()

    assert sorted(expired["w1"].tasks + expired["w2"].tasks, key=str) == sorted(w3_tasks, key=str)
    assert revoked_tasks(expired) == []
    assert sorted(group.all_tasks(), key=str) == sorted(tasks("a", range(6)), key=str)
    assert {a.delay_ms for a in expired.values()} == {0}


def test_without_a_scheduled_delay_a_departed_workers_work_moves_at_once() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3", max_delay_ms=0)
    group.leave("w3")

    round_ = group.rebalance()

    assert len(round_["w1"].tasks + round_["w2"].tasks) == 2
    assert sorted(group.all_tasks(), key=str) == sorted(tasks("a", range(6)), key=str)


def test_a_deleted_connector_and_its_tasks_are_revoked_from_whoever_runs_them() -> None:
    group = settled_group({"a": 2, "b": 2}, "w1", "w2")
    group.config = config_of({"a": 2}, offset=11)

    round_ = group.rebalance()

    assert round_["w1"].revoked_tasks == [TaskId("b", 0)]
    assert round_["w2"].revoked_connectors == ["b"]
    assert round_["w2"].revoked_tasks == [TaskId("b", 1)]
    assert all(not a.connectors and not a.tasks for a in round_.values())
    assert sorted(group.all_connectors()) == ["a"]


def test_a_new_connector_goes_to_the_least_loaded_without_revoking_anything() -> None:
    group = settled_group({"a": 2}, "w1", "w2")
    group.config = config_of({"a": 2, "c": 2}, offset=11)

    round_ = group.rebalance()

    assert round_["w2"].connectors == ["c"]
    assert round_["w1"].tasks == [TaskId("c", 0)] and round_["w2"].tasks == [TaskId("c", 1)]
    assert revoked_tasks(round_) == [] and all(not a.revoked_connectors for a in round_.values())


def test_a_new_leader_keeps_everyone_on_what_their_metadata_says_they_run() -> None:
    group = settled_group({"a": 5, "b": 3}, "w1", "w2", "w3")
    before = {w: (group.connectors_of(w), group.tasks_of(w)) for w in group.running}
    group.new_leader()

    round_ = group.rebalance()

    assert nothing_moves(round_)
    assert {w: (group.connectors_of(w), group.tasks_of(w)) for w in group.running} == before


def test_a_task_running_on_two_workers_is_revoked_from_both_then_assigned_once() -> None:
    group = settled_group({"a": 2}, "w1", "w2")
    w1 = group.running["w1"]
    assert w1 is not None
    duplicate = group.tasks_of("w2")[0]
    group.rejoin_with(
        "w1", ConnectAssignment(w1.leader, w1.leader_url, 10, w1.connectors, [*w1.tasks, duplicate])
    )

    revoking, *_ = group.settle()

    assert duplicate in revoking["w1"].revoked_tasks and duplicate in revoking["w2"].revoked_tasks
    assert sorted(group.all_tasks(), key=str) == tasks("a", [0, 1])


def test_a_leader_behind_a_member_sends_config_mismatch_to_everyone() -> None:
    assignor = IncrementalCooperativeAssignor(10_000, lambda: 0)
    members = {"w1": member("w1", offset=10), "w2": member("w2", offset=12)}

    result = assignor.assign("w1", members, config_of({"a": 1}), last_completed_generation=-1, generation=1)

    assert result.assignments["w2"] == ConnectAssignment("w1", url("w1"), 12, error=CONFIG_MISMATCH)
    assert result.failed


def test_consecutive_balancing_revocations_are_spaced_by_a_growing_delay() -> None:
    group = settled_group({"a": 12}, "w1", "w2")
    group.join("w3")
    group.rebalance()  # revokes for w3
    group.join("w4")

    round_ = group.rebalance()  # w3 takes its share; w4 would need another revocation at once

    assert revoked_tasks(round_) == []
    assert {a.delay_ms for a in round_.values()} == {40}


# -- properties ---------------------------------------------------------------------------------------------

task_counts = st.dictionaries(st.sampled_from("abcdef"), st.integers(min_value=0, max_value=8), max_size=5)
member_names = st.lists(st.sampled_from([f"w{i}" for i in range(8)]), min_size=1, max_size=6, unique=True)


def assert_each_assigned_once_and_balanced(group: Group) -> None:
    configured = [TaskId(c, n) for c, count in group.config.task_counts.items() for n in range(count)]
    assert sorted(group.all_tasks(), key=str) == sorted(configured, key=str)
    assert sorted(group.all_connectors()) == sorted(group.config.connector_configs)
    members = len(group.running)
    for per_member, total in (
        ([len(group.tasks_of(m)) for m in group.running], len(configured)),
        ([len(group.connectors_of(m)) for m in group.running], len(group.config.connector_configs)),
    ):
        assert max(per_member) <= -(-total // members)
        assert min(per_member) >= total // members


def assert_nothing_runs_twice(group: Group) -> None:
    assert len(group.all_tasks()) == len(set(group.all_tasks()))
    assert len(group.all_connectors()) == len(set(group.all_connectors()))


@given(task_counts, member_names)
def test_a_new_group_settles_with_each_task_once_and_balanced(
    counts: dict[str, int], names: list[str]
) -> None:
    group = Group(config_of(counts))
    group.join(*names)
    group.settle()
    assert_each_assigned_once_and_balanced(group)


@given(task_counts, member_names, member_names, member_names, task_counts)
def test_after_joins_departures_and_config_changes_every_round_runs_each_task_once_and_the_group_rebalances(
    counts: dict[str, int],
    first: list[str],
    joining: list[str],
    leaving: list[str],
    new_counts: dict[str, int],
) -> None:
    group = Group(config_of(counts), max_delay_ms=5_000)
    group.join(*first)
    group.settle()
    for name in joining:
        if name not in group.running:
            group.join(name)
    for name in leaving:
        if name in group.running and len(group.running) > 1:
            group.leave(name)
    group.config = config_of(new_counts, offset=11)

    rounds = 0
    while True:
        round_ = group.rebalance()
        assert_nothing_runs_twice(group)
        rounds += 1
        delay = max(a.delay_ms for a in round_.values())
        if not delay and not any(a.revoked_connectors or a.revoked_tasks for a in round_.values()):
            break
        assert rounds < 30
        group.now_ms += delay

    assert_each_assigned_once_and_balanced(group)


def test_work_a_member_kept_running_after_its_revocation_is_still_tracked_and_revoked_on_deletion() -> None:
    group = settled_group({"a": 8}, "w1", "w2")
    before_revocation = group.running["w1"]
    group.join("w3")
    group.rebalance()  # revokes a-0 from w1
    group.rejoin_with("w1", before_revocation)  # w1 did not stop a-0
    group.config = config_of({}, offset=11)

    round_ = group.rebalance()

    assert TaskId("a", 0) in round_["w1"].revoked_tasks
    assert group.all_tasks() == [] and group.all_connectors() == []


def test_a_leader_that_missed_the_last_generation_forgets_what_it_assigned_and_holds_nothing_back() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3")
    group.leave("w3")
    group.leader_completed_generation -= 1

    round_ = group.rebalance()

    assert len(round_["w1"].tasks + round_["w2"].tasks) == 2
    assert {a.delay_ms for a in round_.values()} == {0}


def test_lost_work_is_shared_by_every_member_that_joined_empty_during_the_delay() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3")
    w3_tasks = group.tasks_of("w3")
    group.leave("w3")
    group.rebalance()
    group.now_ms += 2_000
    group.join("w4")
    group.rebalance()
    group.now_ms += 2_000
    group.join("w3")
    group.rebalance()
    group.now_ms += 6_000

    expired = group.rebalance()

    assert len(expired["w3"].tasks) == 1 and len(expired["w4"].tasks) == 1
    assert sorted(expired["w3"].tasks + expired["w4"].tasks, key=str) == sorted(w3_tasks, key=str)
    assert not expired["w1"].tasks and not expired["w2"].tasks


def test_a_worker_that_returns_during_the_delay_and_leaves_again_has_its_work_moved_to_the_others() -> None:
    group = settled_group({"a": 6}, "w1", "w2", "w3")
    group.leave("w3")
    group.rebalance()
    group.now_ms += 5_000
    group.join("w3")
    group.rebalance()
    group.leave("w3")
    group.now_ms += 5_000

    expired = group.rebalance()

    assert len(expired["w1"].tasks) + len(expired["w2"].tasks) == 2
    assert sorted(group.all_tasks(), key=str) == sorted(tasks("a", range(6)), key=str)
