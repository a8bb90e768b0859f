"""How soon a paused or resumed connector's tasks show PAUSED or RUNNING in their status.

Run: ``.venv/bin/python bench/pause_resume_bench.py [--tasks T] [--repetitions N]``. A standalone worker
runs a generator connector with T tasks; each repetition times ``PUT /connectors/<name>/pause`` until
``GET /connectors/<name>/status`` shows every task PAUSED, then the same for ``resume`` and RUNNING.
Baselines from the same run: the ``PUT`` call alone, one ``GET .../status`` alone (the polling's own cost
and granularity), and one push through the control channel alone (a target state set on the worker's
side until the task's side sees it), in this process.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.runtime.control import TargetState
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.control_channel import ControlServer, RemoteTaskControl

POLL_S = 0.002


def wait_for(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(POLL_S)


def task_states(client: httpx.Client, name: str) -> list[str]:
    return [task["state"] for task in client.get(f"/connectors/{name}/status").json()["tasks"]]


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:8.1f} ms   p99 {p99 * 1000:8.1f} ms"


def transition(
    client: httpx.Client, name: str, action: str, state: str, tasks: int, calls: list[float]
) -> float:
    """Seconds from the REST call until every task shows `state`; the call's own time goes to `calls`."""
    began = time.perf_counter()
    response = client.put(f"/connectors/{name}/{action}")
    calls.append(time.perf_counter() - began)
    assert response.status_code == 202, response.text
    wait_for(lambda: task_states(client, name) == [state] * tasks)
    return time.perf_counter() - began


def control_channel_pushes(repetitions: int) -> list[float]:
    server = ControlServer()
    server.start()
    server.register("bench-0", "attempt")
    task = RemoteTaskControl(server.address, "bench-0", "attempt", heartbeat_s=3600.0)
    samples: list[float] = []
    try:
        wait_for(lambda: (state := server.state("bench-0")) is not None and state.last_seen is not None)
        for index in range(repetitions * 2):
            target = TargetState.PAUSED if index % 2 == 0 else TargetState.STARTED
            began = time.perf_counter()
            server.set_target("bench-0", target)
            while task.target_state() is not target:
                time.sleep(0)
            samples.append(time.perf_counter() - began)
    finally:
        task.close()
        server.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--repetitions", type=int, default=30)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="conveyor-pause-bench-"))
    config = WorkerConfig.from_props({"data.dir": str(root), "listeners": "http://127.0.0.1:0"})
    pauses: list[float] = []
    resumes: list[float] = []
    gets: list[float] = []
    puts: list[float] = []
    with StandaloneWorker(config) as worker, httpx.Client(base_url=worker.url, timeout=60.0) as client:
        name = "paced"
        body = {
            "connector.class": "GeneratorSourceConnector",
            "topic": "paced",
            "tasks.max": str(args.tasks),
            "rate": "100",
        }
        assert client.post("/connectors", json={"name": name, "config": body}).status_code == 201
        wait_for(lambda: task_states(client, name) == ["RUNNING"] * args.tasks, timeout_s=120.0)
        for _ in range(args.repetitions):
            pauses.append(transition(client, name, "pause", "PAUSED", args.tasks, puts))
            resumes.append(transition(client, name, "resume", "RUNNING", args.tasks, puts))
            began = time.perf_counter()
            client.get(f"/connectors/{name}/status")
            gets.append(time.perf_counter() - began)
        client.delete(f"/connectors/{name}")
    pushes = control_channel_pushes(args.repetitions)
    print(f"{args.tasks} generator tasks, {args.repetitions} repetitions")
    print(f"{'pause  (PUT -> every task PAUSED)':44}{percentiles(pauses)}")
    print(f"{'resume (PUT -> every task RUNNING)':44}{percentiles(resumes)}")
    print(f"{'baseline: the PUT call alone':44}{percentiles(puts)}")
    print(f"{'baseline: GET /status alone':44}{percentiles(gets)}")
    print(f"{'baseline: one control-channel push alone':44}{percentiles(pushes)}")


if __name__ == "__main__":
    main()
