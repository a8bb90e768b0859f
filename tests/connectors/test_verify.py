"""verify(): per task, the distinct seqnos, duplicates and gaps among values read back from a topic."""

from conveyor.connectors.generator import generated_value, verify


def values(task: int, seqnos: list[int]) -> list[str]:
    return [generated_value(0, task, seqno, 32) for seqno in seqnos]


def test_a_complete_run_is_exactly_once() -> None:
    result = verify(values(0, [0, 1, 2]) + values(1, [0, 1, 2]), expected_per_task=3)
    assert result.exactly_once
    assert (result.distinct, result.duplicates, result.gaps) == (6, 0, 0)


def test_duplicates_are_counted_per_task() -> None:
    result = verify(values(0, [0, 1, 1, 2, 2, 2]) + values(1, [0]))
    assert (result.tasks[0].duplicates, result.tasks[1].duplicates) == (3, 0)
    assert result.tasks[0].distinct == 3
    assert not result.exactly_once


def test_gaps_are_the_seqnos_below_the_highest_seen_that_never_arrived() -> None:
    tally = verify(values(0, [0, 3, 5])).tasks[0]
    assert tally.gaps == 3
    assert tally.first_missing == (1, 2, 4)


def test_an_expected_count_also_counts_a_missing_tail_as_gaps() -> None:
    assert verify(values(0, [0, 1]), expected_per_task=5).tasks[0].gaps == 3


def test_expected_tasks_reports_a_task_from_which_nothing_arrived() -> None:
    tally = verify(values(0, [0]), expected_per_task=1, expected_tasks=2).tasks[1]
    assert (tally.received, tally.gaps) == (0, 1)


def test_bytes_and_strings_are_read_alike() -> None:
    as_text = values(2, [0, 1])
    assert verify([value.encode() for value in as_text]) == verify(as_text)


def test_values_that_were_not_generated_are_counted_as_unreadable() -> None:
    result = verify([*values(0, [0]), "hello", None, b"\xff" * 40])
    assert result.unreadable == 3
    assert not result.exactly_once
