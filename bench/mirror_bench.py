"""Records per second replicated from cluster A to cluster B (two embedded logs), beside the log's own copy.

Run: ``.venv/bin/python bench/mirror_bench.py [records] [--kafka]``. Every figure is measured in the same
run on the same input (3 partitions, 100-byte values with a key and a header):
- ceiling: the log's own read-then-write copy, a consumer's batches sent straight to a producer
  (plain, then in one transaction per batch with the consumer offsets, as the sink design does);
- the sink design (KIP-656 ``MirrorSinkTask``) transactional, with a transaction per polled batch
  (``transaction.boundary=poll``) and with transactions spanning batches (``interval``), and plainly;
- the source design (``MirrorSourceTask``) on an exactly-once worker (KIP-618).
Each figure is the best of three rounds, a round running each once (``--rounds N`` for another count).
The connectors run in the task loops that Spark executors run, in threads of this process: Spark's own
start-up (seconds, once per task) is left out so that the figure is the replication's.
The goal set for the transactional sink design is 80% of the plain copy.

``--kafka``: A and B are two aliases of one real Apache Kafka broker (the same bootstrap servers; the
broker Conveyor's tests use, or ``CONVEYOR_KAFKA_BOOTSTRAP``), each run replicating to remote topics of
its own, and Apache Kafka's own MirrorMaker 2 (``org.apache.kafka.connect.mirror.MirrorMaker``, dedicated
mode, one task) runs on the same broker and input in the same run, plain and with exactly-once support.
On Kafka a run is done when a read_committed consumer following B has read every record (a transaction's
commit marker takes an offset, so offsets do not count records).
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from conveyor.connectors.mirror.source import MirrorSourceConnector
from conveyor.log import Log, TopicPartition, open_log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.task_entry import run_task
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig

PARTITIONS = 3
TOPIC = "orders"
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
CONVERTERS = {"key.converter": BYTE_ARRAY, "value.converter": BYTE_ARRAY, "header.converter": BYTE_ARRAY}
SINK = "conveyor.connectors.mirror.sink:MirrorSinkTask"
DONE_WITHIN_S = 900.0
ROUNDS = 3
PLAIN = "log's own copy, plain"
CEILING = "log's own copy, one transaction per batch (ceiling)"
TRANSACTIONAL = "sink design (KIP-656), transactional"
SPANNING = "sink design, transactional, transaction.boundary=interval"
SPANNING_SETTINGS = {"transaction.boundary": "interval"}
"""The interval boundary with its defaults (100 ms, 10,000 records)."""

Completion = Callable[[Log, str, int], float | None]
"""Returns once ``records`` records of the topic can be read committed from the log; on Kafka with the
rate from the first record read to the last (which leaves out a replicator's start-up)."""


def fill(a: Log, records: int) -> None:
    a.admin().create_topic(TOPIC, partitions=PARTITIONS)
    per_partition = records // PARTITIONS
    with a.producer() as producer:
        for partition in range(PARTITIONS):
            for start in range(0, per_partition, 10_000):
                numbers = range(start, min(per_partition, start + 10_000))
                producer.send_batch(
                    TOPIC,
                    [f"{partition}:{n}".encode().ljust(100, b".") for n in numbers],
                    [f"key-{n}".encode() for n in numbers],
                    partition,
                    [[("origin", b"A")] for _ in numbers],
                )


def stable_records(b: Log, topic: str) -> int:
    admin = b.admin()
    if topic not in admin.list_topics():
        return 0
    partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    return sum(o.last_stable for o in admin.list_offsets(partitions).values())


def wait_for_stable_offsets(b: Log, topic: str, records: int) -> None:
    """The embedded log: every offset is a record, so the stable offsets count them."""
    deadline = time.monotonic() + DONE_WITHIN_S
    while stable_records(b, topic) < records:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{topic} did not reach {records} records")
        time.sleep(0.02)
    return None


def read_committed(b: Log, topic: str, records: int) -> float:
    """Kafka: a read_committed consumer follows the topic until it has read ``records`` records."""
    deadline = time.monotonic() + DONE_WITHIN_S
    while topic not in b.admin().list_topics():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{topic} was not created")
        time.sleep(0.05)
    consumer = b.consumer(None, "read_committed", **{"auto.offset.reset": "earliest"})
    try:
        partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(partitions)
        read, first_read, first_at = 0, 0, 0.0
        while read < records:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{read} of {records} records read from {topic}")
            read += sum(len(batch) for batch in consumer.poll_batch(0.2))
            if not first_read and read:
                first_read, first_at = read, time.perf_counter()
        return (records - first_read) / max(time.perf_counter() - first_at, 1e-9)
    finally:
        consumer.close()


def copy_with_the_log(a: Log, b: Log, records: int, transactional: bool, remote: str) -> None:
    """The ceiling: poll batches from A and send them to B as they are."""
    b.admin().create_topic(remote, partitions=PARTITIONS, exist_ok=True)
    group = f"copy-{remote}"
    consumer = a.consumer(
        group, "read_committed", **{"auto.offset.reset": "earliest", "max.poll.records": 500}
    )
    consumer.assign([TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
    producer = b.producer(transactional_id=group if transactional else None)
    if transactional:
        producer.init_transactions()
    copied = 0
    while copied < records:
        for batch in consumer.poll_batch(0.2):
            if transactional:
                producer.begin_transaction()
            producer.send_batch(
                remote, batch.values, batch.keys, batch.partition, batch.headers, batch.timestamps
            )
            if transactional:
                producer.send_offsets_to_transaction(
                    {TopicPartition(TOPIC, batch.partition): batch.next_offset}, group
                )
                producer.commit_transaction()
            copied += len(batch)
    producer.flush()
    producer.close()
    consumer.close()


def run_connector_task(
    a: Log,
    b: Log,
    records: int,
    task_class: str,
    kind: TaskKind,
    settings: dict[str, str],
    done: Completion,
    alias: str = "A",
) -> float | None:
    """One mirror task in its task loop until B holds every record, then a graceful stop."""
    config = {
        "name": f"bench-{time.monotonic_ns()}",
        "task.class": task_class,
        "source.cluster.alias": alias,
        "target.cluster.alias": "B",
        "source.cluster.log.url": a.url,
        "target.cluster.log.url": b.url,
        **CONVERTERS,
        **settings,
    }
    worker = WorkerConfig.from_props(
        {"log.url": b.url, "group.id": "bench", "offset.flush.interval.ms": "1000", **CONVERTERS}
        | {"exactly.once.source.support": "enabled" if kind is TaskKind.SOURCE else "disabled"}
    )
    spec = TaskSpec(TaskId(config["name"], 0), kind, config, dict(config), worker)
    control = LocalTaskControl()
    thread = threading.Thread(target=run_task, args=(spec, control), daemon=True)
    thread.start()
    try:
        return done(b, f"{alias}.{TOPIC}", records)
    finally:
        control.set_target_state(TargetState.STOPPED)
        thread.join()


def sink_design(
    a: Log,
    b: Log,
    records: int,
    done: Completion,
    alias: str,
    transactional: bool,
    boundary: dict[str, str] | None = None,
) -> float | None:
    settings = {"topics": TOPIC, "consumer.override.log.url": a.url, **(boundary or {})}
    if not transactional:
        settings["transactional.producer"] = "false"
    return run_connector_task(a, b, records, SINK, TaskKind.SINK, settings, done, alias)


def source_design(a: Log, b: Log, records: int, done: Completion, alias: str) -> float | None:
    connector = MirrorSourceConnector()
    connector.start(
        {
            "source.cluster.log.url": a.url,
            "target.cluster.log.url": b.url,
            "source.cluster.alias": alias,
            "topics": TOPIC,
            "refresh.topics.enabled": "false",
            **CONVERTERS,
        }
    )
    (task_config,) = connector.task_configs(1)
    connector.stop()
    return run_connector_task(
        a,
        b,
        records,
        "conveyor.connectors.mirror.source:MirrorSourceTask",
        TaskKind.SOURCE,
        task_config,
        done,
        alias,
    )


@dataclass(frozen=True)
class Rate:
    """Records/s over a run's whole time, and (when known) from the first record it replicated."""

    overall: float
    steady: float | None = None


def timed(label: str, records: int, run: Callable[[], float | None]) -> Rate:
    """Runs ``run`` and prints records/s over its whole time (and, when known, from its first record)."""
    start = time.perf_counter()
    steady = run()
    rate = Rate(records / (time.perf_counter() - start), steady)
    print(f"{label:<66} {show(rate)}", flush=True)
    return rate


def show(rate: Rate) -> str:
    after_start = "" if rate.steady is None else f"   from its first record: {rate.steady:>10,.0f}"
    return f"{rate.overall:>10,.0f} records/s{after_start}"


def fresh(root: Path, name: str) -> Log:
    return open_log(f"embedded:{root / name}")


def report(best: dict[str, Rate]) -> None:
    ceiling, plain = best[CEILING].overall, best[PLAIN].overall
    for label in (TRANSACTIONAL, SPANNING):
        rate = best[label].overall
        print(f"{label}: {rate / ceiling:.0%} of the transactional copy, {rate / plain:.0%} of the plain one")


def best_of_rounds(
    records: int, runs: dict[str, Callable[[int], float | None]], rounds: int
) -> dict[str, Rate]:
    """Each run's best rates over ``rounds`` rounds; a round runs each once, so a change of load on a
    shared machine falls on all of them alike."""
    best: dict[str, Rate] = {}
    for round_ in range(rounds):
        for label, run in runs.items():
            rate = timed(f"{label} (round {round_ + 1})", records, functools.partial(run, round_))
            known = best.get(label, Rate(0.0))
            steadies = [s for s in (known.steady, rate.steady) if s is not None]
            best[label] = Rate(max(known.overall, rate.overall), max(steadies) if steadies else None)
    print(f"best of {rounds} rounds:")
    for label, rate in best.items():
        print(f"{label:<66} {show(rate)}")
    return best


def main(records: int, rounds: int = ROUNDS) -> None:
    records -= records % PARTITIONS
    with tempfile.TemporaryDirectory(prefix="mirror-bench-") as directory:
        root = Path(directory)
        a = fresh(root, "a")
        fill(a, records)
        print(f"{records:,} records of 100 bytes in {PARTITIONS} partitions, cluster A to cluster B")
        done = wait_for_stable_offsets
        best = best_of_rounds(
            records,
            {
                PLAIN: lambda r: copy_with_the_log(
                    a, fresh(root, f"plain{r}"), records, False, "copy.orders"
                ),
                CEILING: lambda r: copy_with_the_log(
                    a, fresh(root, f"copy{r}"), records, True, "copy.orders"
                ),
                TRANSACTIONAL: lambda r: sink_design(a, fresh(root, f"sink{r}"), records, done, "A", True),
                SPANNING: lambda r: sink_design(
                    a, fresh(root, f"span{r}"), records, done, "A", True, SPANNING_SETTINGS
                ),
                "sink design, not transactional": lambda r: sink_design(
                    a, fresh(root, f"plain-sink{r}"), records, done, "A", False
                ),
                "source design (KIP-618), exactly-once worker": lambda r: source_design(
                    a, fresh(root, f"source{r}"), records, done, "A"
                ),
            },
            rounds,
        )
        report(best)


MM2_PROPERTIES = """clusters = {alias}, B
{alias}.bootstrap.servers = {servers}
B.bootstrap.servers = {servers}
{alias}->B.enabled = true
{alias}->B.topics = {topic}
B->{alias}.enabled = false
tasks.max = 1
refresh.topics.enabled = false
replication.factor = 1
checkpoints.topic.replication.factor = 1
heartbeats.topic.replication.factor = 1
offset-syncs.topic.replication.factor = 1
offset.storage.replication.factor = 1
status.storage.replication.factor = 1
config.storage.replication.factor = 1
sync.topic.acls.enabled = false
"""

EXACTLY_ONCE_PROPERTIES = """B.exactly.once.source.support = enabled
dedicated.mode.enable.internal.rest = true
listeners = http://127.0.0.1:{port}
"""


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def apache_mirror_maker(
    b: Log, servers: str, records: int, alias: str, exactly_once: bool, directory: Path
) -> float:
    """Apache Kafka's MirrorMaker 2 in dedicated mode, from its JVM's start until B holds every record."""
    from conveyor.kafka_broker.fetch import fetch_kafka

    kafka = fetch_kafka()
    properties = directory / f"mm2-{alias}.properties"
    text = MM2_PROPERTIES.format(alias=alias, servers=servers, topic=TOPIC)
    if exactly_once:
        text += EXACTLY_ONCE_PROPERTIES.format(port=free_port())
    properties.write_text(text)
    with open(directory / f"mm2-{alias}.out", "wb") as output:
        process = subprocess.Popen(
            [
                "java",
                "-Xms128m",
                "-Xmx512m",
                f"-Dlog4j2.configurationFile={kafka.log4j_config}",
                "-cp",
                kafka.classpath,
                "org.apache.kafka.connect.mirror.MirrorMaker",
                str(properties),
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            return read_committed(b, f"{alias}.{TOPIC}", records)
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def kafka_broker(directory: Path) -> Iterator[str]:
    """``CONVEYOR_KAFKA_BOOTSTRAP``'s broker, or one started for the run."""
    external = os.environ.get("CONVEYOR_KAFKA_BOOTSTRAP")
    if external:
        yield external
        return
    from conveyor.kafka_broker import KafkaBroker

    with KafkaBroker(directory / "broker") as broker:
        yield broker.bootstrap_servers


def main_on_kafka(records: int, rounds: int, with_apache: bool = True) -> None:
    """Every figure on one broker; A and B are two aliases of it, each run writing topics of its own."""
    records -= records % PARTITIONS
    with (
        tempfile.TemporaryDirectory(prefix="mirror-bench-kafka-") as directory,
        kafka_broker(Path(directory)) as servers,
    ):
        log = open_log(f"kafka://{servers}")
        if TOPIC in log.admin().list_topics():
            raise SystemExit(f"{TOPIC!r} exists on {servers} already: the bench needs a broker of its own")
        fill(log, records)
        print(f"{records:,} records of 100 bytes in {PARTITIONS} partitions, A to B on one Kafka broker")
        here, done = Path(directory), read_committed
        best = best_of_rounds(
            records,
            {
                PLAIN: lambda r: copy_with_the_log(log, log, records, False, f"copy{r}.orders"),
                CEILING: lambda r: copy_with_the_log(log, log, records, True, f"txcopy{r}.orders"),
                TRANSACTIONAL: lambda r: sink_design(log, log, records, done, f"A{r}", True),
                SPANNING: lambda r: sink_design(log, log, records, done, f"S{r}", True, SPANNING_SETTINGS),
                "sink design, not transactional": lambda r: sink_design(
                    log, log, records, done, f"N{r}", False
                ),
            }
            | (
                {
                    "Apache Kafka's MirrorMaker 2 (dedicated mode)": lambda r: apache_mirror_maker(
                        log, servers, records, f"K{r}", False, here
                    ),
                    "Apache Kafka's MirrorMaker 2, exactly-once (KIP-618)": lambda r: apache_mirror_maker(
                        log, servers, records, f"E{r}", True, here
                    ),
                }
                if with_apache
                else {}
            ),
            rounds,
        )
        report(best)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=int, nargs="?", default=150_000)
    parser.add_argument("--kafka", action="store_true", help="on one Apache Kafka broker, beside its MM2")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument(
        "--without-apache", action="store_true", help="--kafka without Apache MM2 (a minute each to start)"
    )
    arguments = parser.parse_args()
    if arguments.kafka:
        main_on_kafka(arguments.records, arguments.rounds, not arguments.without_apache)
    else:
        main(arguments.records, arguments.rounds)
