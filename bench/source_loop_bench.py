"""CPU per record of the exactly-once FileStreamSource loop on Kafka, beside confluent-kafka in the same run.

The real source path: ``FileStreamSourceTask`` polled by ``SourceTaskLoop`` (exactly-once, one
transaction per poll, string converters) into a one-partition topic of a real broker. The baseline hands
the same lines, with timestamps, to a transactional confluent-kafka ``Producer`` in a tight ``produce``
loop, the same number per transaction, offsets excluded: what librdkafka alone costs. CPU is this
process's (its librdkafka threads included), which drifts much less than wall time on a shared machine;
the loop's records per second of wall time are printed beside it. ``--boundary interval`` makes the
loop's transactions span polls (``transaction.boundary=interval``, ``--interval-ms`` each) while the
baseline keeps one transaction per 2,000 lines. Starts a broker with ``conveyor.kafka_broker`` unless
``CONVEYOR_KAFKA_BOOTSTRAP`` names one.

    .venv/bin/python bench/source_loop_bench.py [--lines N] [--rounds N] [--boundary poll|interval]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

from confluent_kafka import Producer

from conveyor.connectors.file.source import FileStreamSourceTask
from conveyor.data import SourceRecord
from conveyor.log import Log, open_log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig
from kafka_bench import broker

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
BATCH_SIZE = 2000
"""Kafka's FileStreamSource default ``batch.size``: one poll, one transaction."""
CONVEYOR = "Conveyor FileStreamSource loop, exactly-once"
CONVEYOR_THREAD = "  of which the task loop's own thread"
CONVEYOR_WALL = "Conveyor loop, records/s of wall time"
BASELINE = "confluent-kafka produce, transactional"


def write_input(path: Path, lines: int) -> None:
    with open(path, "w") as file:
        for start in range(0, lines, 100_000):
            file.write("".join(f"line-{n:09d}\n" for n in range(start, min(lines, start + 100_000))))


class TimedFileSource(FileStreamSourceTask):
    """Stops its loop at the end of the file; notes the process's and its thread's CPU clocks at its
    first poll."""

    idle_wait_seconds = 0.0
    control: LocalTaskControl
    cpu_started = 0.0
    thread_cpu_started = 0.0
    wall_started = 0.0

    def poll(self) -> list[SourceRecord] | None:
        if not self.cpu_started:
            self.cpu_started = time.process_time()
            self.thread_cpu_started = time.thread_time()
            self.wall_started = time.monotonic()
        records = super().poll()
        if records is None:
            self.control.set_target_state(TargetState.STOPPED)
        return records


def conveyor_source(
    log: Log, path: Path, topic: str, transactions: dict[str, str]
) -> tuple[float, float, float]:
    """CPU seconds of the process, and of the loop's own thread, and wall seconds, from the first poll
    to the last commit."""
    worker = WorkerConfig.from_props(
        {
            "log.url": log.url,
            "group.id": f"bench-{topic}",
            "offset.storage.topic": f"{topic}-offsets",
            "offset.storage.partitions": "1",
            "exactly.once.source.support": "enabled",
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
        }
    )
    config = {"name": topic, "file": str(path), "topic": topic, "batch.size": str(BATCH_SIZE), **transactions}
    spec = TaskSpec(TaskId(topic, 0), TaskKind("source"), config, dict(config), worker)
    control = LocalTaskControl()
    task = TimedFileSource()
    task.control = control
    loop = SourceTaskLoop(spec, control, log, task)
    finished = threading.Event()
    cpu_ended = thread_cpu_ended = wall_ended = 0.0

    def run() -> None:
        nonlocal cpu_ended, thread_cpu_ended, wall_ended
        try:
            loop.run()
        finally:
            cpu_ended, thread_cpu_ended = time.process_time(), time.thread_time()
            wall_ended = time.monotonic()
            finished.set()

    threading.Thread(target=run, daemon=True).start()
    finished.wait()
    return (
        cpu_ended - task.cpu_started,
        thread_cpu_ended - task.thread_cpu_started,
        wall_ended - task.wall_started,
    )


def librdkafka_produce(bootstrap: str, topic: str, lines: list[bytes]) -> float:
    """CPU seconds of confluent-kafka producing ``lines`` with timestamps, a transaction per batch."""
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "transactional.id": f"bench-{topic}",
            "linger.ms": 5,
            "batch.size": 1 << 20,
        }
    )
    producer.init_transactions(30)
    started = time.process_time()
    produce = producer.produce
    for start in range(0, len(lines), BATCH_SIZE):
        producer.begin_transaction()
        timestamp = int(time.time() * 1000)
        for value in lines[start : start + BATCH_SIZE]:
            while True:
                try:
                    produce(topic, value, None, timestamp=timestamp)
                    break
                except BufferError:
                    producer.poll(0.05)
        producer.poll(0)
        producer.commit_transaction(30)
    cpu = time.process_time() - started
    producer.flush()
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--boundary", choices=("poll", "interval"), default="poll")
    parser.add_argument("--interval-ms", type=int, default=1000)
    arguments = parser.parse_args()
    transactions = {"transaction.boundary": arguments.boundary}
    if arguments.boundary == "interval":
        transactions["transaction.boundary.interval.ms"] = str(arguments.interval_ms)
    costs: dict[str, list[float]] = {}
    rates: list[float] = []
    with tempfile.TemporaryDirectory(prefix="source-loop-input-") as directory, broker() as bootstrap:
        path = Path(directory) / "input.txt"
        write_input(path, arguments.lines)
        lines = path.read_bytes().splitlines()
        namespace = f"bench{uuid.uuid4().hex[:8]}."
        log = open_log(f"kafka://{bootstrap}?namespace={namespace}")
        admin = log.admin()
        for round_number in range(arguments.rounds + 1):  # the first round warms the JVM up, unreported
            ours, theirs = f"ours-{round_number}", f"theirs-{round_number}"
            admin.create_topic(ours, 1)
            admin.create_topic(theirs, 1)
            measured: dict[str, float] = {}
            for side in ("ours", "theirs") if round_number % 2 == 0 else ("theirs", "ours"):
                if side == "ours":
                    process_cpu, thread_cpu, wall = conveyor_source(log, path, ours, transactions)
                    measured[CONVEYOR] = process_cpu
                    measured[CONVEYOR_THREAD] = thread_cpu
                    measured[CONVEYOR_WALL] = wall
                else:
                    measured[BASELINE] = librdkafka_produce(bootstrap, namespace + theirs, lines)
            if round_number:
                for name in (CONVEYOR, CONVEYOR_THREAD, BASELINE):
                    costs.setdefault(name, []).append(measured[name] * 1e6 / arguments.lines)
                rates.append(arguments.lines / measured[CONVEYOR_WALL])
        log.close()
    boundary = "per poll" if arguments.boundary == "poll" else f"per {arguments.interval_ms} ms"
    print(
        f"{arguments.lines} lines, {BATCH_SIZE} per poll, a transaction {boundary}, one partition; "
        f"CPU us per record, median of {arguments.rounds} rounds (each round)"
    )
    for name, values in costs.items():
        rounds = ", ".join(f"{value:.2f}" for value in values)
        print(f"  {name:48s} {statistics.median(values):>6.2f}  ({rounds})")
    rounds = ", ".join(f"{rate / 1000:.1f}k" for rate in rates)
    print(f"  {CONVEYOR_WALL:48s} {statistics.median(rates) / 1000:>5.1f}k  ({rounds})")


if __name__ == "__main__":
    main()
