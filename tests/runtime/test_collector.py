"""The collector's pace: a process running source or sink loops collects its young generation less often."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.log import open_log
from conveyor.runtime.collector import YOUNG_GENERATION_THRESHOLD, collect_less_often
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.source_task import SourceTaskLoop

from .support import running, task_spec, worker_props
from .tasks import RecordingSinkTask, ScriptedSourceTask


@pytest.fixture(autouse=True)
def cpython_default_threshold() -> Iterator[None]:
    """Each test starts from CPython's default thresholds; the process's own come back after it."""
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_the_young_generation_threshold_is_raised_and_the_older_ones_kept() -> None:
    collect_less_often()
    assert gc.get_threshold() == (YOUNG_GENERATION_THRESHOLD, 10, 10)


def test_a_higher_threshold_is_never_lowered() -> None:
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD * 2, 10, 10)
    collect_less_often()
    assert gc.get_threshold()[0] == YOUNG_GENERATION_THRESHOLD * 2


def test_a_collector_turned_off_by_a_zero_threshold_stays_off() -> None:
    gc.set_threshold(0, 10, 10)
    collect_less_often()
    assert gc.get_threshold()[0] == 0


def test_a_source_task_loop_collects_less_often(tmp_path: Path) -> None:
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        control = LocalTaskControl()
        spec = task_spec({"topic": "lines"}, worker_props(log.url))
        loop = SourceTaskLoop(spec, control, log, ScriptedSourceTask([]))
        with running(loop, control):
            assert gc.get_threshold()[0] == YOUNG_GENERATION_THRESHOLD


def test_a_sink_task_loop_collects_less_often(tmp_path: Path) -> None:
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        control = LocalTaskControl()
        spec = task_spec({"topics": "lines"}, worker_props(log.url), kind="sink")
        loop = SinkTaskLoop(spec, control, log, RecordingSinkTask())
        with running(loop, control):
            assert gc.get_threshold()[0] == YOUNG_GENERATION_THRESHOLD
