"""The first worker has its Spark JVM write the archive of its classes into Conveyor's cache directory as it
exits, and the next worker publishes it and its JVM maps it; neither writes a line of the JVM's own to
the worker's log.

Each worker is a `conveyor standalone` process with a cache directory of the test's own."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from tests.conveyor_process import EXIT_S, ConveyorProcess, start_standalone, with_test_plugins

from conveyor.spark.class_archive import ARCHIVES_DIR

from .support import wait_until

STARTUP_S = 240.0
JVM_EXIT_S = 300.0
"""How long the first worker's JVM may take to exit: it writes the archive as it does."""
WORKER_LINE = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
NOT_LOGGING = ("REST API at http://",)  # what the command prints for scripts once it serves


def start_worker(directory: Path, cache: Path) -> ConveyorProcess:
    """A worker on `cache`, once healthy (its SparkSession started)."""
    directory.mkdir()
    props = {
        "data.dir": str(directory / "data"),
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[1,1]",
    }
    env = with_test_plugins()
    env.pop("CONVEYOR_KAFKA_CACHE", None)
    env["XDG_CACHE_HOME"] = str(cache)
    worker = start_standalone(directory, props, STARTUP_S, env)
    try:
        wait_until(lambda: healthy(worker), "the worker's SparkSession", STARTUP_S)
    except BaseException:
        worker.stop()
        raise
    return worker


def healthy(worker: ConveyorProcess) -> bool:
    return httpx.get(worker.url + "/health", timeout=5).status_code == 200


def spark_jvm(worker: ConveyorProcess) -> int:
    """The pid of the worker's Spark JVM (its child running SparkSubmit)."""
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == worker.process.pid and b"SparkSubmit" in command:
            return int(entry.name)
    raise AssertionError(f"no Spark JVM under worker {worker.process.pid}")


def foreign_lines(worker: ConveyorProcess) -> list[str]:
    return [
        line
        for line in worker.output
        if not WORKER_LINE.match(line)
        and not any(known in line for known in NOT_LOGGING)
        and line.strip()
        and not line.startswith((" ", "\t", "Traceback"))
    ]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("class-archive-cache")


@pytest.fixture(scope="module")
def first_worker(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> ConveyorProcess:
    """The first worker on the cache, started and stopped, and its JVM gone (having written the archive)."""
    worker = start_worker(tmp_path_factory.mktemp("first") / "worker", cache)
    jvm = spark_jvm(worker)
    worker.process.terminate()
    try:
        assert worker.process.wait(EXIT_S) == 0, worker.tail()
    finally:
        worker.stop()
    wait_until(lambda: not Path(f"/proc/{jvm}").exists(), "the first worker's JVM to exit", JVM_EXIT_S)
    return worker


def archives(cache: Path) -> list[Path]:
    return sorted((cache / "conveyor" / ARCHIVES_DIR).glob("*.jsa"))


def test_the_first_worker_publishes_no_archive_and_nothing_of_its_jvms_reaches_its_log(
    first_worker: ConveyorProcess, cache: Path
) -> None:
    assert archives(cache) == []
    assert foreign_lines(first_worker) == []


def test_the_next_worker_starts_its_jvm_from_the_archive(
    first_worker: ConveyorProcess, cache: Path, tmp_path: Path
) -> None:
    worker = start_worker(tmp_path / "worker", cache)
    try:
        [archive] = archives(cache)
        assert [p.name for p in archive.parent.iterdir() if ".partial" in p.name] == []
        assert str(archive) in Path(f"/proc/{spark_jvm(worker)}/maps").read_text()
        assert "written by an earlier worker's JVM as it exited, is in place" in worker.log
        assert foreign_lines(worker) == []
    finally:
        worker.stop()
