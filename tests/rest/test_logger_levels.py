"""Python loggers read and set through Kafka Connect's log4j level names."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import pytest

from conveyor.rest.logger_levels import LoggerLevel, LoggerLevels, is_valid_level, level_name


class SteppingClock:
    """A clock the test moves by hand, so timestamps can be told apart."""

    def __init__(self) -> None:
        self.now_ms = 1_000

    def __call__(self) -> int:
        return self.now_ms


@pytest.fixture
def namespace() -> Iterator[str]:
    """A fresh logger namespace under a parent pinned at INFO, removed from logging afterwards."""
    name = f"conveyor_test_{uuid.uuid4().hex}"
    logging.getLogger(name).setLevel(logging.INFO)
    yield name
    manager = logging.root.manager
    for logger_name in [key for key in manager.loggerDict if key == name or key.startswith(name + ".")]:
        del manager.loggerDict[logger_name]


@pytest.mark.parametrize(
    ("python_level", "log4j_name"),
    [
        (5, "TRACE"),
        (logging.DEBUG, "DEBUG"),
        (logging.INFO, "INFO"),
        (logging.WARNING, "WARN"),
        (logging.ERROR, "ERROR"),
        (logging.CRITICAL, "FATAL"),
        (logging.CRITICAL + 10, "OFF"),
    ],
)
def test_python_levels_are_named_as_log4j_names_them(python_level: int, log4j_name: str) -> None:
    assert level_name(python_level) == log4j_name


def test_a_level_between_two_log4j_levels_takes_the_name_of_the_next_stricter_one() -> None:
    assert level_name(15) == "INFO"


def test_level_names_are_valid_in_any_case_and_python_only_names_are_not() -> None:
    assert is_valid_level("debug")
    assert is_valid_level("Warn")
    assert not is_valid_level("WARNING")
    assert not is_valid_level("")


def test_a_logger_reports_its_effective_level_and_no_last_modified_until_changed(namespace: str) -> None:
    logging.getLogger(f"{namespace}.child")
    level = LoggerLevels().level(f"{namespace}.child")
    assert level is not None
    assert level.to_json() == {"level": "INFO", "last_modified": None}


def test_an_unknown_logger_has_no_level(namespace: str) -> None:
    assert LoggerLevels().level(f"{namespace}.never.created") is None


def test_root_is_known_by_name_in_any_case_and_by_the_empty_name() -> None:
    levels = LoggerLevels()
    expected = level_name(logging.getLogger().getEffectiveLevel())
    assert [levels.level(name) for name in ("root", "ROOT", "")] == [levels.level("root")] * 3
    root = levels.level("root")
    assert root is not None and root.level == expected


def test_setting_a_namespace_sets_it_and_every_logger_below_it(namespace: str) -> None:
    for suffix in ("a", "a.deep", "b"):
        logging.getLogger(f"{namespace}.{suffix}")
    changed = LoggerLevels().set_level(namespace, "DEBUG")
    assert changed == sorted([namespace, f"{namespace}.a", f"{namespace}.a.deep", f"{namespace}.b"])
    assert logging.getLogger(f"{namespace}.a.deep").level == logging.DEBUG


def test_setting_a_namespace_leaves_loggers_that_only_share_its_prefix_alone(namespace: str) -> None:
    sibling = logging.getLogger(f"{namespace}x")
    LoggerLevels().set_level(namespace, "ERROR")
    assert sibling.level == logging.NOTSET
    del logging.root.manager.loggerDict[f"{namespace}x"]


def test_setting_a_logger_that_does_not_exist_yet_creates_it(namespace: str) -> None:
    levels = LoggerLevels()
    assert levels.set_level(f"{namespace}.new", "trace") == [f"{namespace}.new"]
    created = levels.level(f"{namespace}.new")
    assert created is not None and created.level == "TRACE"


def test_a_change_records_when_it_was_made(namespace: str) -> None:
    clock = SteppingClock()
    levels = LoggerLevels(clock)
    clock.now_ms = 42_000
    levels.set_level(namespace, "WARN")
    assert levels.level(namespace) == LoggerLevel("WARN", 42_000)


def test_setting_the_same_level_again_changes_nothing_and_keeps_the_timestamp(namespace: str) -> None:
    clock = SteppingClock()
    levels = LoggerLevels(clock)
    levels.set_level(namespace, "ERROR")
    clock.now_ms += 5_000
    assert levels.set_level(namespace, "ERROR") == []
    level = levels.level(namespace)
    assert level is not None and level.last_modified == 1_000


def test_loggers_set_to_off_are_left_out_of_the_listing(namespace: str) -> None:
    levels = LoggerLevels()
    logging.getLogger(f"{namespace}.quiet")
    levels.set_level(f"{namespace}.quiet", "OFF")
    listing = levels.all_levels()
    assert namespace in listing
    assert f"{namespace}.quiet" not in listing


def test_the_listing_is_sorted_by_logger_name(namespace: str) -> None:
    logging.getLogger(f"{namespace}.z")
    logging.getLogger(f"{namespace}.a")
    names = list(LoggerLevels().all_levels())
    assert names == sorted(names)
