"""Offsets JSON as Spark's Kafka source writes it, resolved against partition bounds, and trigger limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.log import PartitionOffsets, TopicPartition
from conveyor.spark.datasource.offsets import (
    EARLIEST,
    LATEST,
    capped,
    from_json_dict,
    parse_offsets_json,
    resolve,
    to_json_dict,
)
from conveyor.spark.datasource.options import ConveyorOptionError
from conveyor.spark.datasource.ranges import plan_ranges

A0, A1 = TopicPartition("a", 0), TopicPartition("a", 1)
BOUNDS = {A0: PartitionOffsets(earliest=5, latest=20, last_stable=15), A1: PartitionOffsets(0, 8, 8)}


def test_offsets_json_names_topics_then_partitions_as_strings() -> None:
    assert to_json_dict({A1: 7, A0: 3}) == {"a": {"0": 3, "1": 7}}


def test_offsets_json_reads_back_what_it_wrote() -> None:
    assert from_json_dict(to_json_dict({A0: 3, A1: -2})) == {A0: 3, A1: -2}


def test_earliest_resolves_to_the_earliest_kept_offset() -> None:
    assert resolve("earliest", "startingOffsets", [A0, A1], BOUNDS, "read_committed", EARLIEST) == {
        A0: 5,
        A1: 0,
    }


def test_latest_is_the_last_stable_offset_under_read_committed() -> None:
    assert resolve("latest", "endingOffsets", [A0], BOUNDS, "read_committed", LATEST) == {A0: 15}


def test_latest_is_the_high_watermark_under_read_uncommitted() -> None:
    assert resolve("latest", "endingOffsets", [A0], BOUNDS, "read_uncommitted", LATEST) == {A0: 20}


def test_json_offsets_take_minus_two_as_earliest_and_minus_one_as_latest() -> None:
    spec = '{"a":{"0":-2,"1":-1}}'
    assert resolve(spec, "startingOffsets", [A0, A1], BOUNDS, "read_committed", EARLIEST) == {A0: 5, A1: 8}


def test_partitions_a_json_leaves_out_take_the_default() -> None:
    spec = '{"a":{"0":7}}'
    assert resolve(spec, "endingOffsets", [A0, A1], BOUNDS, "read_committed", LATEST) == {A0: 7, A1: 8}


@pytest.mark.parametrize("spec", ["nonsense", "[1, 2]", '{"a": 3}', '{"a": {"x": 1}}', '{"a": {"0": -3}}'])
def test_malformed_offsets_json_is_an_option_error_naming_the_option(spec: str) -> None:
    with pytest.raises(ConveyorOptionError, match="startingOffsets"):
        parse_offsets_json(spec, "startingOffsets")


def test_a_limit_above_what_is_available_keeps_the_end() -> None:
    assert capped({A0: 0, A1: 0}, {A0: 10, A1: 10}, 100) == {A0: 10, A1: 10}


def test_a_limit_is_shared_in_proportion_to_what_each_partition_has() -> None:
    assert capped({A0: 0, A1: 0}, {A0: 30, A1: 10}, 20) == {A0: 15, A1: 5}


def test_a_limit_counts_from_the_start_of_each_partition() -> None:
    assert capped({A0: 100, A1: 50}, {A0: 110, A1: 60}, 10) == {A0: 105, A1: 55}


@given(
    available=st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=6),
    limit=st.integers(min_value=1, max_value=3000),
)
def test_a_capped_end_never_passes_the_limit_nor_the_end_and_uses_all_of_the_limit(
    available: list[int], limit: int
) -> None:
    partitions = [TopicPartition("t", p) for p in range(len(available))]
    start = {tp: 10 for tp in partitions}
    end = {tp: 10 + n for tp, n in zip(partitions, available, strict=True)}
    result = capped(start, end, limit)
    assert all(start[tp] <= result[tp] <= end[tp] for tp in partitions)
    assert sum(result[tp] - start[tp] for tp in partitions) == min(limit, sum(available))


def test_ranges_are_one_per_partition_by_default() -> None:
    ranges = plan_ranges({A0: 5, A1: 0}, {A0: 15, A1: 8})
    assert [(r.partition, r.start, r.end) for r in ranges] == [(0, 5, 15), (1, 0, 8)]


def test_min_partitions_cuts_ranges_in_proportion_to_their_size() -> None:
    ranges = plan_ranges({A0: 0, A1: 0}, {A0: 30, A1: 10}, min_partitions=4)
    assert [(r.partition, r.start, r.end) for r in ranges] == [
        (0, 0, 10),
        (0, 10, 20),
        (0, 20, 30),
        (1, 0, 10),
    ]


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=500), min_size=1, max_size=5),
    min_partitions=st.integers(min_value=1, max_value=20),
)
def test_cut_ranges_cover_every_offset_once_and_are_planned_the_same_way_again(
    sizes: list[int], min_partitions: int
) -> None:
    partitions = [TopicPartition("t", p) for p in range(len(sizes))]
    start = {tp: 7 for tp in partitions}
    end = {tp: 7 + n for tp, n in zip(partitions, sizes, strict=True)}
    ranges = plan_ranges(start, end, min_partitions)
    for tp, size in zip(partitions, sizes, strict=True):
        covered = [o for r in ranges if r.topic_partition == tp for o in range(r.start, r.end)]
        assert covered == list(range(7, 7 + size))
    assert ranges == plan_ranges(start, end, min_partitions)
