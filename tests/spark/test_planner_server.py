"""The driver's planner server: Spark's launches of a streaming source's planning process are forked from a
process that has loaded pyspark already, and run as Spark asked (streams, environment, directory,
arguments, exit status); a launch it cannot run as asked runs without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from tests.waiting import wait_until

from conveyor.log import Log
from conveyor.spark import planner_client
from conveyor.spark.planner_server import (
    SOCKET_ENV,
    STREAMING_SOURCE_RUNNER,
    PlannerServer,
    refusal,
    starting_marker,
)

from .records import committed

PROBE = "tests.spark.planner_probe"
WITH_PROBE = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(Path(__file__).parents[2])]))
"""A `PYTHONPATH` under which a launch the server does not run finds the probe in the launcher itself."""


def start_server(path: Path) -> subprocess.Popen[bytes]:
    """A planner server that runs the probe module, on ``path``."""
    return subprocess.Popen(
        [sys.executable, "-m", "conveyor.spark.planner_server", str(path), PROBE], stdin=subprocess.PIPE
    )


def stop_server(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    process.wait(60)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """A planner server serving on a socket in the test's directory."""
    path = tmp_path / "planner.sock"
    process = start_server(path)
    try:
        wait_until(lambda: path.is_socket() or process.poll() is not None, "the server's socket", 120)
        assert process.poll() is None
        yield process, path
    finally:
        stop_server(process)


def launch(path: Path, tmp_path: Path, **env: str) -> tuple[int, dict[str, Any]]:
    """Launch the probe through the client as Spark's launcher does; its exit status and what it printed."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", planner_client.__file__, "-m", PROBE, "an-argument"],
        input=b"from the launcher",
        capture_output=True,
        cwd=tmp_path,
        env=os.environ | {SOCKET_ENV: str(path), "PROBE": "given"} | env,
        timeout=120,
    )
    return done.returncode, json.loads(done.stdout)


def test_a_launch_runs_in_a_child_of_the_server_with_the_launchs_streams_environment_and_arguments(
    server: tuple[subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    process, path = server
    status, probe = launch(path, tmp_path)
    assert probe["ppid"] == process.pid
    assert probe["cwd"] == probe["first_on_path"] == str(tmp_path)
    assert probe["argv"] == ["an-argument"]
    assert probe["probe"] == "given"
    assert probe["stdin"] == "from the launcher"
    assert status == 3


def test_a_launch_while_the_server_is_still_loading_waits_for_it_and_runs_in_its_child(
    tmp_path: Path,
) -> None:
    path = tmp_path / "planner.sock"
    process = start_server(path)  # loads pyspark and pyarrow: far longer than the launch takes to start
    try:
        Path(starting_marker(str(path))).write_text(str(process.pid))
        status, probe = launch(path, tmp_path)
    finally:
        stop_server(process)
    assert probe["ppid"] == process.pid
    assert status == 3


def test_a_launch_with_another_pythonpath_runs_in_the_launchers_own_process(
    server: tuple[subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    _, path = server
    status, probe = launch(path, tmp_path, PYTHONPATH=f"{WITH_PROBE}{os.pathsep}{tmp_path}")
    assert probe["ppid"] == os.getpid()
    assert (probe["stdin"], status) == ("from the launcher", 3)


def test_a_launch_without_a_server_runs_in_the_launchers_own_process(tmp_path: Path) -> None:
    status, probe = launch(tmp_path / "no-server.sock", tmp_path, PYTHONPATH=WITH_PROBE)
    assert probe["ppid"] == os.getpid()
    assert (probe["argv"], status) == (["an-argument"], 3)


def test_the_server_runs_only_the_modules_it_was_started_for() -> None:
    request = {"argv": ["-m", "pyspark.worker"], "env": {"PYTHONPATH": ""}, "cwd": "/"}
    assert refusal(request, (STREAMING_SOURCE_RUNNER,), "") is not None


def _children(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in children]


def test_a_streaming_querys_planning_process_is_forked_by_the_drivers_planner_server(
    spark: SparkSession, log: Log, log_url: str, topic: str, tmp_path: Path
) -> None:
    server = PlannerServer.ensure_started()
    assert server is not None
    wait_until(lambda: server.path.is_socket(), "the planner server's socket", 120)
    before = set(_children(server.process.pid))
    committed(log, topic, [b"a"], 0)
    frame = (
        spark.readStream.format("conveyor")
        .option("log.url", log_url)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
    )
    query = frame.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "cp")).start()
    try:
        query.processAllAvailable()
        planners = set(_children(server.process.pid)) - before
    finally:
        query.stop()
    assert len(planners) == 1
