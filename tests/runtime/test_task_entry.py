"""`run_task`, the function every placement runs: it opens the log, builds the loop `task.class` needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.log import Log, open_log
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.shared_logs import PROCESS_LOGS
from conveyor.runtime.task_entry import run_task
from conveyor.runtime.task_spec import TaskSpec
from conveyor.spark.streaming.query_tasks import is_query_task

from .support import read_values, running, task_spec, wait_until, worker_props

FILE_SOURCE_TASK = "conveyor.connectors.file.source:FileStreamSourceTask"
FAILING_SOURCE_TASK = "tests.worker.connectors:FailingSourceTask"
FILE_SINK_TASK = "conveyor.connectors.file.sink:FileStreamSinkTask"


class EntryLoop:
    """`run_task` for one spec, in the shape `running` drives."""

    def __init__(self, spec_config: dict[str, str], log: Log, control: LocalTaskControl) -> None:
        self._spec = task_spec(spec_config, worker_props(log.url))
        self._control = control

    def run(self) -> None:
        run_task(self._spec, self._control)


class SpecLoop:
    """`run_task` for a spec built by the test."""

    def __init__(self, spec: TaskSpec, control: LocalTaskControl) -> None:
        self._spec = spec
        self._control = control

    def run(self) -> None:
        run_task(self._spec, self._control)


def test_a_source_task_class_runs_in_the_source_loop(log: Log, tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("first\nsecond\n")
    control = LocalTaskControl()
    config = {"task.class": FILE_SOURCE_TASK, "file": str(source), "topic": "lines"}
    with running(EntryLoop(config, log, control), control):
        wait_until(lambda: read_values(log, "lines") == ["first", "second"], "the file's lines in the topic")


def test_kafkas_java_name_of_the_file_source_task_runs_conveyors_task(log: Log, tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("written by\nkafka connect\n")
    control = LocalTaskControl()
    config = {
        "task.class": "org.apache.kafka.connect.file.FileStreamSourceTask",
        "file": str(source),
        "topic": "t",
    }
    with running(EntryLoop(config, log, control), control):
        wait_until(
            lambda: read_values(log, "t") == ["written by", "kafka connect"], "the file's lines in the topic"
        )


def test_a_task_failure_is_raised_to_the_placement(log: Log) -> None:
    control = LocalTaskControl()
    config = {"task.class": FAILING_SOURCE_TASK, "fail.after.ms": "0"}
    with running(EntryLoop(config, log, control), control) as handle:
        error = handle.join()
    assert isinstance(error, RuntimeError) and "failed on purpose" in str(error)


def test_a_class_that_is_no_task_is_refused(log: Log) -> None:
    spec = task_spec({"task.class": "conveyor.runtime.control:LocalTaskControl"}, worker_props(log.url))
    with pytest.raises(TypeError, match="neither a SourceTask nor a SinkTask"):
        run_task(spec, LocalTaskControl())


def test_a_sink_task_reads_the_log_its_connector_names_instead_of_the_workers(
    log: Log, tmp_path: Path
) -> None:
    with open_log(f"embedded:{tmp_path / 'other-cluster'}") as other:
        other.admin().create_topic("lines")
        with other.producer() as producer:
            producer.send("lines", b"from the other cluster")
        output = tmp_path / "output.txt"
        control = LocalTaskControl()
        config = {
            "task.class": FILE_SINK_TASK,
            "file": str(output),
            "topics": "lines",
            "consumer.override.log.url": other.url,
        }
        spec = task_spec(config, worker_props(log.url, **{"offset.flush.interval.ms": "100"}), kind="sink")
        with running(SpecLoop(spec, control), control):
            wait_until(
                lambda: output.exists() and output.read_text() == "from the other cluster\n",
                "the other cluster's record in the file",
            )
        assert "lines" not in log.admin().list_topics()


def test_kafkas_java_name_of_the_file_source_task_is_an_ordinary_task_not_a_query(log: Log) -> None:
    spec = task_spec(
        {"task.class": "org.apache.kafka.connect.file.FileStreamSourceTask"}, worker_props(log.url)
    )
    assert not is_query_task(spec)


def test_tasks_of_one_process_on_one_log_share_it_until_the_last_ends(log: Log, tmp_path: Path) -> None:
    controls = [LocalTaskControl(), LocalTaskControl()]
    loops = []
    for n, control in enumerate(controls):
        source = tmp_path / f"input-{n}.txt"
        source.write_text(f"line of {n}\n")
        config = {"task.class": FILE_SOURCE_TASK, "file": str(source), "topic": "shared"}
        loops.append(EntryLoop(config, log, control))
    with running(loops[0], controls[0]), running(loops[1], controls[1]):
        wait_until(lambda: len(read_values(log, "shared")) == 2, "a line from each task")

        assert PROCESS_LOGS.users(log.url) == 2

    assert PROCESS_LOGS.users(log.url) == 0
