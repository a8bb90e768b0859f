"""Rebalances of a distributed group under the eager and the incremental cooperative protocol.

Run: ``.venv/bin/python bench/rebalance_bench.py [--runner threads|spark] [--delay-ms N]``. For each
protocol (`connect.protocol=eager`, then `sessioned`) a fresh group of real worker processes shares one
embedded log: three workers run sixty generator tasks (three endless connectors of twenty tasks at a
modest rate); then a fourth worker joins; then a follower is bounced (SIGTERM, started again within
`scheduled.rebalance.max.delay.ms`); then another is killed with SIGKILL. Printed per phase and
protocol: the seconds until every task runs again on live workers with the load balanced, and how many
task stops the workers that stayed through the phase made, counted from the status topic. The eager
protocol is the same-run baseline of the cooperative one.

Last, a broker outage on Kafka (`--outage-only` runs just that): two workers run exactly-once generator
tasks, the broker is stopped until every task has failed (its producers gave up after
`producer.delivery.timeout.ms`) and started again on the same store; printed are the seconds until every
task runs again and the task stops the status topic shows on the workers, which all stay.

Then a stuck herder (`--stall-only` runs just that): three workers on an embedded log
(`connect.protocol=sessioned`, `rebalance.timeout.ms=10000`) run generator tasks; one worker's herder
work thread is blocked (SIGUSR2 to `bench/rebalance_worker.py`, which queues a call that never returns
while its heartbeats go on); printed are the seconds from the stall until the worker leaves the group
(its poll timer), then until every task runs again, balanced, on the two others, and the task stops
on those two.

`--runner threads` (the default) runs each worker's tasks in threads of its process
(`bench/rebalance_worker.py`); `--runner spark` runs `conveyor distributed` itself, tasks on Spark.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

from conveyor.kafka_broker import KafkaBroker
from conveyor.log import Log, TopicPartition, open_log
from conveyor.log.errors import LogError
from conveyor.storage.json_values import from_json_bytes
from conveyor.storage.status_records import TASK_STATUS_PREFIX, parse_status

ROOT = Path(__file__).resolve().parent.parent
CONNECTORS = 3
TASKS_PER_CONNECTOR = 20
TASKS = CONNECTORS * TASKS_PER_CONNECTOR
RATE = 5.0
STATUS_TOPIC = "connect-status"
PROTOCOLS = ("eager", "sessioned")
PHASES = ("join", "bounce", "kill")
DEADLINE_S = 180.0
SETTLE_S = 2.0
PHASE_SLACK_S = 75.0
"""A phase may take `scheduled.rebalance.max.delay.ms` plus this long; after that it reports 'never'."""
STOP_S = 60.0
"""How long a worker may take to stop on SIGTERM; after that its threads are dumped and it is killed."""
COMMANDS = {
    "threads": [sys.executable, str(ROOT / "bench" / "rebalance_worker.py")],
    "spark": [sys.executable, "-m", "conveyor.cli", "distributed", "--log-level", "INFO"],
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for(condition: Callable[[], Any], what: str, deadline_s: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.2)
    raise TimeoutError(f"timed out waiting for {what}")


@dataclass
class WorkerProcess:
    """One worker of the group as a child process, always on the same port so it returns as itself."""

    name: str
    properties: Path
    port: int
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    output: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def worker_id(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.output = open(self.properties.with_suffix(".log"), "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            [*self.command, str(self.properties)],
            stdout=subprocess.DEVNULL,
            stderr=self.output,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
        )

    def answers(self) -> bool:
        try:
            return httpx.get(self.url + "/", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def wait_up(self) -> None:
        wait_for(self.answers, f"worker {self.name} to serve REST")

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> bool:
        """Stop the process with `sig`; False if it had to be killed after `STOP_S`."""
        stopped = True
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(STOP_S)
            except subprocess.TimeoutExpired:
                stopped = False
                self.process.send_signal(signal.SIGUSR1)
                time.sleep(1)
                self.process.kill()
                self.process.wait()
        if self.output is not None:
            self.output.close()
        return stopped


class StopCounter:
    """Reads the status topic as it grows and counts task stops per worker: a task RUNNING on a worker
    has stopped there once its next status record is anything but RUNNING from that same worker."""

    def __init__(self, log: Log, topic: str = STATUS_TOPIC) -> None:
        described = log.admin().describe_topics([topic])[topic]
        self._partitions: list[TopicPartition] = described.topic_partitions()
        self._consumer = log.consumer()
        self._consumer.assign(self._partitions)
        self._consumer.seek_to_beginning()
        self._running_on: dict[bytes, str] = {}
        self._since_mark: dict[bytes, str] = {}

    def mark(self) -> None:
        """Forget the statuses read so far, for `running_since_mark`."""
        self._since_mark.clear()

    def running_since_mark(self) -> int:
        """How many tasks were last written RUNNING among the records read since `mark`."""
        return sum(state == "RUNNING" for state in self._since_mark.values())

    def read_stops(self) -> Counter[str]:
        """Stops per worker id in the records written since the last call."""
        stops: Counter[str] = Counter()
        end = self._consumer.end_offsets(self._partitions)
        while any(self._consumer.position(p) < end[p] for p in self._partitions):
            for record in self._consumer.poll(1.0):
                if record.key is None or not record.key.startswith(TASK_STATUS_PREFIX.encode()):
                    continue
                status = None if record.value is None else parse_status(from_json_bytes(record.value))
                if status is None:
                    continue
                self._since_mark[record.key] = status.state
                previous = self._running_on.pop(record.key, None)
                if status.state == "RUNNING":
                    self._running_on[record.key] = status.worker_id
                if previous is not None and (status.state, status.worker_id) != ("RUNNING", previous):
                    stops[previous] += 1
        return stops

    def close(self) -> None:
        self._consumer.close()


@dataclass(frozen=True)
class Load:
    """The generator connectors a group runs."""

    connectors: int = CONNECTORS
    tasks_per_connector: int = TASKS_PER_CONNECTOR

    @property
    def tasks(self) -> int:
        return self.connectors * self.tasks_per_connector


def task_placement(client: httpx.Client, load: Load = Load()) -> list[tuple[str, str]] | None:
    """(state, worker id) of every task, or None while a connector's tasks are not all listed."""
    placement = []
    for index in range(load.connectors):
        response = client.get(f"/connectors/gen-{index}/status")
        if response.status_code != 200:
            return None
        tasks = response.json()["tasks"]
        if len(tasks) != load.tasks_per_connector:
            return None
        placement.extend((task["state"], task["worker_id"]) for task in tasks)
    return placement


def runs_balanced(client: httpx.Client, live: list[WorkerProcess], load: Load = Load()) -> bool:
    """Every task RUNNING on a live worker, each live worker running its share (floor or ceil)."""
    placement = task_placement(client, load)
    if placement is None or any(state != "RUNNING" for state, _ in placement):
        return False
    per_worker = Counter(worker for _, worker in placement)
    live_ids = {w.worker_id for w in live}
    if set(per_worker) != live_ids:
        return False
    return max(per_worker.values()) - min(per_worker.values()) <= 1


def running_on(client: httpx.Client, live: list[WorkerProcess]) -> int:
    """How many tasks are RUNNING on a live worker."""
    live_ids = {w.worker_id for w in live}
    placement = task_placement(client) or []
    return sum(state == "RUNNING" and worker in live_ids for state, worker in placement)


@dataclass
class PhaseResult:
    seconds: float | None
    """None if the tasks did not all run again, balanced, within the phase's time limit."""
    stops: int
    stayed: int
    note: str = ""

    def cell(self) -> str:
        return f"{'never':>12}" if self.seconds is None else f"{self.seconds:12.1f}"


@dataclass
class ProtocolRun:
    protocol: str
    startup_s: float = 0.0
    phases: dict[str, PhaseResult] = field(default_factory=dict)
    away_s: float = 0.0
    """How long the bounced worker was out of the group."""
    hung: list[str] = field(default_factory=list)
    """Workers that did not stop within `STOP_S` of SIGTERM (their threads are dumped in their log)."""


def worker_properties(root: Path, name: str, port: int, protocol: str, delay_ms: int) -> Path:
    path = root / f"{name}.properties"
    path.write_text(
        "\n".join(
            [
                f"group.id=rebalance-{protocol}",
                f"data.dir={root}",
                f"listeners=http://127.0.0.1:{port}",
                "rest.advertised.host.name=127.0.0.1",
                f"connect.protocol={protocol}",
                f"scheduled.rebalance.max.delay.ms={delay_ms}",
                "offset.flush.interval.ms=1000",
                "",
            ]
        )
    )
    return path


def create_connectors(client: httpx.Client, load: Load = Load()) -> None:
    """Create the connectors one at a time, each once the previous one's tasks all run."""
    for index in range(load.connectors):
        name = f"gen-{index}"
        config = {
            "connector.class": "GeneratorSourceConnector",
            "topic": f"generated-{index}",
            "tasks.max": str(load.tasks_per_connector),
            "rate": str(RATE),
        }
        body = {"name": name, "config": config}
        # A group still settling answers 409 (rebalance in progress) or 503 (no leader known yet).
        response = wait_for(
            lambda b=body: (r := client.post("/connectors", json=b)).status_code not in (409, 503) and r,
            "the group to accept a connector",
        )
        assert response.status_code == 201, response.text
        wait_for(
            lambda n=name: connector_runs(client, n, load.tasks_per_connector),
            f"every task of {name} running",
        )


def connector_runs(client: httpx.Client, name: str, tasks: int = TASKS_PER_CONNECTOR) -> bool:
    response = client.get(f"/connectors/{name}/status")
    if response.status_code != 200:
        return False
    states = [task["state"] for task in response.json()["tasks"]]
    return states == ["RUNNING"] * tasks


def run_protocol(protocol: str, runner: str, delay_ms: int) -> ProtocolRun:
    root = Path(tempfile.mkdtemp(prefix=f"conveyor-rebalance-{protocol}-"))
    workers = [
        WorkerProcess(name, worker_properties(root, name, port, protocol, delay_ms), port, COMMANDS[runner])
        for name, port in ((name, free_port()) for name in "ABCD")
    ]
    a, b, c, d = workers
    result = ProtocolRun(protocol)
    counter: StopCounter | None = None
    log = open_log(f"embedded:{root / 'log'}")
    try:
        a.start()
        a.wait_up()
        b.start()
        c.start()
        b.wait_up()
        c.wait_up()
        client = httpx.Client(base_url=a.url, timeout=60)
        began = time.monotonic()
        create_connectors(client)
        wait_for(lambda: runs_balanced(client, [a, b, c]), "sixty running tasks")
        result.startup_s = time.monotonic() - began
        counter = StopCounter(log)
        counter.read_stops()

        def phase(name: str, stayed: list[WorkerProcess], live: list[WorkerProcess], began: float) -> None:
            limit_s = delay_ms / 1000 + PHASE_SLACK_S
            try:
                wait_for(lambda: runs_balanced(client, live), f"{name}: every task running", limit_s)
                seconds: float | None = time.monotonic() - began
            except TimeoutError:
                seconds = None
            time.sleep(SETTLE_S)
            assert counter is not None
            stops = counter.read_stops()
            total = sum(stops[w.worker_id] for w in stayed)
            outcome = PhaseResult(seconds, total, len(stayed))
            if seconds is None:
                outcome.note = f"after {limit_s:g} s {running_on(client, live)} of {TASKS} tasks ran"
            result.phases[name] = outcome
            print(f"  {protocol:9} {name:7} {outcome.cell().strip()} s, {total} stops on staying workers")

        d.start()
        d.wait_up()
        phase("join", [a, b, c], workers, time.monotonic())

        began = time.monotonic()
        if not b.stop():
            result.hung.append(f"{b.name} (bounce)")
        b.start()
        b.wait_up()
        away_s = time.monotonic() - began
        phase("bounce", [a, c, d], workers, began)
        result.away_s = away_s

        began = time.monotonic()
        c.stop(signal.SIGKILL)
        phase("kill", [a, b, d], [a, b, d], began)
        client.close()
    finally:
        if counter is not None:
            counter.close()
        with ThreadPoolExecutor(len(workers)) as pool:
            stopped = list(pool.map(WorkerProcess.stop, workers))
        result.hung.extend(f"{w.name} (end)" for w, ok in zip(workers, stopped, strict=True) if not ok)
        log.close()
        print(f"  {protocol}: worker logs in {root}")
    return result


OUTAGE_LOAD = Load(connectors=2, tasks_per_connector=5)
OUTAGE_CLIENT_RETRY_MS = 8_000
"""`producer.delivery.timeout.ms` of the outage group: how long its producers retry before failing."""


def kafka_worker_properties(root: Path, name: str, port: int, bootstrap: str, delay_ms: int) -> Path:
    """A worker of the outage group: on Kafka, exactly-once sources, clients that give up soon."""
    path = root / f"{name}.properties"
    path.write_text(
        "\n".join(
            [
                "group.id=outage",
                f"bootstrap.servers={bootstrap}",
                "config.storage.replication.factor=1",
                "offset.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                f"listeners=http://127.0.0.1:{port}",
                "rest.advertised.host.name=127.0.0.1",
                f"scheduled.rebalance.max.delay.ms={delay_ms}",
                "offset.flush.interval.ms=1000",
                "exactly.once.source.support=enabled",
                f"producer.delivery.timeout.ms={OUTAGE_CLIENT_RETRY_MS}",
                f"producer.transaction.timeout.ms={OUTAGE_CLIENT_RETRY_MS * 2}",
                "task.restart.backoff.max.ms=5000",
                "",
            ]
        )
    )
    return path


def every_task_failed(workers: list[WorkerProcess], load: Load) -> bool:
    """Each task has logged a failure on some worker since the broker went."""
    text = "".join(w.properties.with_suffix(".log").read_text(errors="replace") for w in workers)
    return all(
        f"Task gen-{c}-{t} failed" in text
        for c in range(load.connectors)
        for t in range(load.tasks_per_connector)
    )


def run_outage(runner: str, delay_ms: int) -> PhaseResult:
    """Two workers on a Kafka broker run exactly-once generator tasks; the broker is stopped until every
    task has failed, then started again. Seconds from the broker's return until every task runs again,
    balanced, with a RUNNING status written since; stops: those the status topic shows on both workers."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-rebalance-outage-"))
    load = OUTAGE_LOAD
    with KafkaBroker(root / "broker", heap="1g") as broker:
        bootstrap = broker.bootstrap_servers
        workers = [
            WorkerProcess(
                name, kafka_worker_properties(root, name, port, bootstrap, delay_ms), port, COMMANDS[runner]
            )
            for name, port in ((name, free_port()) for name in "AB")
        ]
        counter: StopCounter | None = None
        log = open_log(f"kafka://{bootstrap}")
        try:
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.wait_up()
            client = httpx.Client(base_url=workers[0].url, timeout=60)
            create_connectors(client, load)
            wait_for(lambda: runs_balanced(client, workers, load), f"{load.tasks} running tasks")
            counter = StopCounter(log)
            counter.read_stops()
            broker.stop()
            down = time.monotonic()
            wait_for(lambda: every_task_failed(workers, load), "every task to fail while the broker is down")
            counter.mark()
            broker.start()
            began = time.monotonic()
            print(f"  outage: the broker was down {began - down:.1f} s")
            limit_s = delay_ms / 1000 + PHASE_SLACK_S + 60.0
            stops: Counter[str] = Counter()

            def recovered() -> bool:
                assert counter is not None
                try:
                    stops.update(counter.read_stops())
                except LogError:
                    return False  # the broker does not know the status topic's leaders yet
                return counter.running_since_mark() == load.tasks and runs_balanced(client, workers, load)

            try:
                wait_for(recovered, "every task running again", limit_s)
                seconds: float | None = time.monotonic() - began
            except TimeoutError:
                seconds = None
            time.sleep(SETTLE_S)
            stops.update(counter.read_stops())
            live = [w for w in workers if w.process is not None and w.process.poll() is None]
            outcome = PhaseResult(seconds, sum(stops.values()), len(live))
            if seconds is None:
                outcome.note = f"after {limit_s:g} s {running_on(client, workers)} of {load.tasks} tasks ran"
            print(f"  outage: {outcome.cell().strip()} s, {outcome.stops} stops, {len(live)} workers stayed")
            client.close()
        finally:
            if counter is not None:
                counter.close()
            with ThreadPoolExecutor(len(workers)) as pool:
                list(pool.map(WorkerProcess.stop, workers))
            log.close()
            print(f"  outage: worker logs in {root}")
    return outcome


STALL_LOAD = Load(connectors=2, tasks_per_connector=6)
STALL_REBALANCE_TIMEOUT_MS = 10_000
STALL_LEFT_LINE = b"was not polled within rebalance.timeout.ms"


@dataclass
class StallResult:
    detected_s: float | None
    """Seconds from the stall until the stuck worker left its group; None if it never did."""
    phase: PhaseResult
    """Seconds from that until every task ran on the two others, and their task stops."""


def run_stall(delay_ms: int) -> StallResult:
    """Three threaded workers; one's herder is stalled. Seconds until it leaves the group, then until
    every task runs, balanced, on the two others; stops: those the status topic shows on those two."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-rebalance-stall-"))
    load = STALL_LOAD
    workers = []
    for name in "ABC":
        port = free_port()
        properties = worker_properties(root, name, port, "sessioned", delay_ms)
        with properties.open("a") as extra:
            extra.write(f"rebalance.timeout.ms={STALL_REBALANCE_TIMEOUT_MS}\n")
        workers.append(WorkerProcess(name, properties, port, COMMANDS["threads"]))
    a, b, c = workers
    counter: StopCounter | None = None
    log = open_log(f"embedded:{root / 'log'}")
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.wait_up()
        client = httpx.Client(base_url=a.url, timeout=60)
        create_connectors(client, load)
        wait_for(lambda: runs_balanced(client, workers, load), f"{load.tasks} running tasks")
        counter = StopCounter(log)
        counter.read_stops()
        stalled_log = c.properties.with_suffix(".log")
        lines_before = stalled_log.read_bytes().count(STALL_LEFT_LINE)
        assert c.process is not None
        c.process.send_signal(signal.SIGUSR2)
        began = time.monotonic()
        detected_s: float | None = None
        limit_s = STALL_REBALANCE_TIMEOUT_MS / 1000 + delay_ms / 1000 + PHASE_SLACK_S
        try:
            wait_for(
                lambda: stalled_log.read_bytes().count(STALL_LEFT_LINE) > lines_before,
                "the stalled worker to leave its group",
                limit_s,
            )
            detected_s = time.monotonic() - began
            detected = time.monotonic()
            wait_for(lambda: runs_balanced(client, [a, b], load), "every task on the two others", limit_s)
            seconds: float | None = time.monotonic() - detected
        except TimeoutError:
            seconds = None
        time.sleep(SETTLE_S)
        stops = counter.read_stops()
        outcome = PhaseResult(seconds, stops[a.worker_id] + stops[b.worker_id], 2)
        if seconds is None:
            outcome.note = f"after {limit_s:g} s {running_on(client, [a, b])} of {load.tasks} tasks ran"
        c.process.send_signal(signal.SIGUSR2)
        client.close()
    finally:
        if counter is not None:
            counter.close()
        with ThreadPoolExecutor(len(workers)) as pool:
            list(pool.map(WorkerProcess.stop, workers))
        log.close()
        print(f"  stall: worker logs in {root}")
    return StallResult(detected_s, outcome)


def report_stall(result: StallResult, delay_ms: int) -> None:
    print()
    left = "never" if result.detected_s is None else f"{result.detected_s:.1f} s"
    print(
        f"stuck herder (sessioned, {STALL_LOAD.tasks} tasks on 3 workers, rebalance.timeout.ms="
        f"{STALL_REBALANCE_TIMEOUT_MS}, scheduled.rebalance.max.delay.ms={delay_ms}): the stuck worker "
        f"left its group {left} after the stall; every task ran again on the two others "
        f"{result.phase.cell().strip()} s after that, with {result.phase.stops} task stops on them"
    )
    if result.phase.note:
        print(f"stuck herder: {result.phase.note}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runner", choices=sorted(COMMANDS), default="threads")
    parser.add_argument("--delay-ms", type=int, default=15_000, help="scheduled.rebalance.max.delay.ms")
    parser.add_argument(
        "--outage-only", action="store_true", help="run only the broker outage phase (Kafka, sessioned)"
    )
    parser.add_argument("--stall-only", action="store_true", help="run only the stuck herder phase")
    args = parser.parse_args()
    if args.stall_only:
        report_stall(run_stall(args.delay_ms), args.delay_ms)
        return
    if args.outage_only:
        report_outage(run_outage(args.runner, args.delay_ms))
        return
    where = (
        "tasks in threads of each worker process (bench/rebalance_worker.py), not Spark"
        if args.runner == "threads"
        else "tasks on Spark (conveyor distributed)"
    )
    print(
        f"{TASKS} generator tasks ({CONNECTORS} connectors x {TASKS_PER_CONNECTOR}, "
        f"{RATE:g} records/s each); worker processes on one embedded log; {where}"
    )
    print(
        f"session.timeout.ms=10000 (default), scheduled.rebalance.max.delay.ms={args.delay_ms}; "
        "bounce: SIGTERM then start again; kill: SIGKILL"
    )
    runs = [run_protocol(protocol, args.runner, args.delay_ms) for protocol in PROTOCOLS]
    print()
    header = f"{'phase':34}" + "".join(f"{run.protocol + ' s':>12}{'stops':>8}" for run in runs)
    print(header)
    print(f"{'start: 60 tasks on 3 workers':34}" + "".join(f"{run.startup_s:12.1f}{'':>8}" for run in runs))
    labels = {
        "join": "a 4th worker joins",
        "bounce": "a follower bounces",
        "kill": "a follower is killed (-9)",
    }
    for name in PHASES:
        line = f"{labels[name]:34}"
        for run in runs:
            phase = run.phases[name]
            line += f"{phase.cell()}{phase.stops:8}"
        print(line)
    print()
    print("s: seconds until every task runs on a live worker, load balanced; stops: task stops on the")
    print("workers that stayed through the phase (from the status topic).")
    for run in runs:
        print(f"{run.protocol}: the bounced worker was back {run.away_s:.1f} s after its SIGTERM")
        for name in PHASES:
            if run.phases[name].note:
                print(f"{run.protocol}: {labels[name]}: {run.phases[name].note}")
        if run.hung:
            print(f"{run.protocol}: did not stop within {STOP_S:g} s of SIGTERM: {', '.join(run.hung)}")
    report_outage(run_outage(args.runner, args.delay_ms))
    report_stall(run_stall(args.delay_ms), args.delay_ms)


def report_outage(outcome: PhaseResult) -> None:
    print()
    print(
        f"broker outage (sessioned, Kafka, {OUTAGE_LOAD.tasks} exactly-once tasks on 2 workers, "
        f"producer.delivery.timeout.ms={OUTAGE_CLIENT_RETRY_MS}): {outcome.cell().strip()} s until every "
        f"task ran again after the broker was back, {outcome.stops} task stops on the "
        f"{outcome.stayed} workers that stayed"
    )
    if outcome.note:
        print(f"broker outage: {outcome.note}")


if __name__ == "__main__":
    main()
