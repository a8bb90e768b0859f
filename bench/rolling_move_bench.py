"""A rolling move from Apache Kafka Connect 4.3.1 to Conveyor, one worker at a time, measured per step.

Run: ``.venv/bin/python bench/rolling_move_bench.py [--runner threads|spark] [--delay-ms N]``. One
Kafka broker; three Kafka Connect workers in one `sessioned` group run an exactly-once
`FileStreamSource` and a `FileStreamSink` while 200 lines are appended to the source file every
0.25 s. Then, three times: a Conveyor worker joins the group, and once both connectors run on workers
of the group, a Kafka Connect worker is stopped (SIGTERM). Printed per step: the seconds from starting
the Conveyor worker until it serves the group's connectors, the seconds from the Kafka Connect
worker's stop until both connectors run again on the workers left, and the task stops on the workers
that stayed through the step (from the status topic, as `rebalance_bench.py` counts them). Last, a
read_committed reader counts the lines in the topic: every line exactly once, or the duplicates and
gaps.

`--runner threads` (the default) runs the Conveyor workers' tasks in threads of their processes
(`bench/rebalance_worker.py`, everything else the product's); `--runner spark` runs `conveyor
distributed` itself, tasks on Spark (heavier: three JVMs of Kafka Connect and up to three of Spark).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from conveyor.kafka_broker import KafkaBroker, KafkaConnect
from conveyor.log import open_log

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.rebalance_bench import COMMANDS, StopCounter, WorkerProcess, free_port, wait_for
from tests.takeover.test_kafka_connect_takeover import group_settings
from tests.takeover.test_rolling_move import SINK, SOURCE, connector_configs
from tests.takeover.topics import LineTally, append_lines, create_topic, tally_lines

WORKERS = 3
LINES_PER_APPEND = 200
APPEND_EVERY_S = 0.25
JVM_STARTUP_S = 300.0
SETTLE_S = 300.0


@dataclass
class Appender:
    """Appends lines to the source file on a thread of its own until stopped; counts what it wrote."""

    path: Path
    written: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self._stop.wait(APPEND_EVERY_S):
            append_lines(self.path, self.written, LINES_PER_APPEND)
            self.written += LINES_PER_APPEND

    def stop(self) -> int:
        self._stop.set()
        return self.written


@dataclass
class Step:
    join_s: float
    """From starting the Conveyor worker until it answered for the group's connectors."""
    leave_s: float
    """From the Kafka Connect worker's stop until both connectors ran again on the workers left."""
    stops: int
    """Task and connector stops on the workers that stayed through the step."""


def conveyor_worker(root: Path, name: str, settings: dict[str, str], runner: str) -> WorkerProcess:
    port = free_port()
    properties = root / f"{name}.properties"
    lines = [f"{key}={value}" for key, value in settings.items()]
    lines += [f"listeners=http://127.0.0.1:{port}", "rest.advertised.host.name=127.0.0.1", f"data.dir={root}"]
    properties.write_text("\n".join(lines) + "\n")
    return WorkerProcess(name, properties, port, COMMANDS[runner])


@dataclass
class Group:
    """The group's workers of both runtimes, asked over HTTP."""

    kafka_connect: list[KafkaConnect]
    conveyor: list[WorkerProcess] = field(default_factory=list)

    def urls(self) -> list[str]:
        return [worker.url for worker in self.kafka_connect] + [worker.url for worker in self.conveyor]

    def worker_ids(self) -> set[str]:
        return {w.worker_id for w in self.kafka_connect} | {w.worker_id for w in self.conveyor}

    def runs_both(self, url: str | None = None) -> bool:
        """Both connectors and their tasks RUNNING on workers of the group, as `url` (or any) sees it."""
        for name in (SOURCE, SINK):
            try:
                response = httpx.get(f"{url or self.urls()[0]}/connectors/{name}/status", timeout=30)
            except httpx.HTTPError:
                return False
            if response.status_code != 200:
                return False
            status = response.json()
            units = [status["connector"], *status["tasks"]]
            if len(units) != 2 or any(
                unit["state"] != "RUNNING" or unit["worker_id"] not in self.worker_ids() for unit in units
            ):
                return False
        return True


def roll(group: Group, root: Path, settings: dict[str, str], runner: str, counter: StopCounter) -> Step:
    counter.read_stops()
    began = time.monotonic()
    joining = conveyor_worker(root, f"conveyor-{len(group.conveyor)}", settings, runner)
    joining.start()
    group.conveyor.append(joining)
    joining.wait_up()
    wait_for(lambda: group.runs_both(joining.url), "the new worker to serve both connectors", SETTLE_S)
    join_s = time.monotonic() - began
    leaving = group.kafka_connect.pop(0)
    stopped = time.monotonic()
    leaving.stop()
    wait_for(group.runs_both, "both connectors running after a Kafka Connect worker left", SETTLE_S)
    leave_s = time.monotonic() - stopped
    stops: Counter[str] = counter.read_stops()
    stayed = group.worker_ids()
    return Step(join_s, leave_s, sum(count for worker, count in stops.items() if worker in stayed))


def run(runner: str, delay_ms: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="conveyor-rolling-"))
    with KafkaBroker(root / "broker", heap="1g") as broker:
        bootstrap = broker.bootstrap_servers
        settings = {
            **group_settings(bootstrap),
            "connect.protocol": "sessioned",
            "scheduled.rebalance.max.delay.ms": str(delay_ms),
        }
        topic = f"lines-{uuid.uuid4().hex[:8]}"
        create_topic(bootstrap, topic)
        source, sink = root / "input.txt", root / "output.txt"
        source.touch()
        group = Group([KafkaConnect(root / f"kafka-connect-{n}", settings) for n in range(WORKERS)])
        appender = Appender(source)
        log = open_log(f"kafka://{bootstrap}")
        counter: StopCounter | None = None
        try:
            began = time.monotonic()
            for worker in group.kafka_connect:
                worker.start(JVM_STARTUP_S)
            print(f"three Kafka Connect workers healthy in {time.monotonic() - began:.1f} s")
            for name, config in connector_configs(source, sink, topic).items():
                response = httpx.post(f"{group.urls()[0]}/connectors", json={"name": name, "config": config})
                assert response.status_code == 201, response.text
            wait_for(group.runs_both, "both connectors running on Kafka Connect", SETTLE_S)
            threading.Thread(target=appender.run, daemon=True).start()
            counter = StopCounter(log, settings["status.storage.topic"])
            steps = [roll(group, root, settings, runner, counter) for _ in range(WORKERS)]
            total = appender.stop()
            tally = wait_for(
                lambda: (t := tally_lines(bootstrap, topic, total)).distinct >= total and t,
                "every line in the topic",
                SETTLE_S,
            )
            report(steps, runner, delay_ms, tally)
        finally:
            appender.stop()
            if counter is not None:
                counter.close()
            for worker in group.kafka_connect:
                worker.stop()
            for conveyor in group.conveyor:
                conveyor.stop()
            log.close()
            print(f"worker logs in {root}")


def report(steps: list[Step], runner: str, delay_ms: int, tally: LineTally) -> None:
    where = "tasks in threads (bench/rebalance_worker.py)" if runner == "threads" else "tasks on Spark"
    print(f"\nrolling move, Kafka Connect 4.3.1 -> Conveyor ({where}), delay {delay_ms} ms")
    print(f"{'step':6}{'join s':>10}{'leave s':>10}{'stops':>8}")
    for number, step in enumerate(steps, 1):
        print(f"{number:<6}{step.join_s:10.1f}{step.leave_s:10.1f}{step.stops:8}")
    print("join: from starting the Conveyor worker until it serves both connectors; leave: from stopping a")
    print("Kafka Connect worker until both connectors run again; stops: on the workers that stayed")
    print(
        f"lines appended {tally.expected}, records in the topic {tally.records}, "
        f"duplicates {tally.duplicates}, gaps {tally.gaps}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runner", choices=sorted(COMMANDS), default="threads")
    parser.add_argument("--delay-ms", type=int, default=5_000, help="scheduled.rebalance.max.delay.ms")
    args = parser.parse_args()
    run(args.runner, args.delay_ms)


if __name__ == "__main__":
    main()
