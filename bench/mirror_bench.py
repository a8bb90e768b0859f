"""Records per second replicated from cluster A to cluster B (two embedded logs), beside the log's own copy.

Run: ``.venv/bin/python bench/mirror_bench.py [records]``. Every figure is measured in the same run on
the same input (3 partitions, 100-byte values with a key and a header):
- ceiling: the log's own read-then-write copy, a consumer's batches sent straight to a producer
  (plain, then in one transaction per batch with the consumer offsets, as the sink design does);
- the sink design (KIP-656 ``MirrorSinkTask``) transactional and not;
- the source design (``MirrorSourceTask``) on an exactly-once worker (KIP-618).
The connectors run in the task loops that Spark executors run, in threads of this process: Spark's own
start-up (seconds, once per task) is left out so that the figure is the replication's.
The goal set for the transactional sink design is 80% of the transactional copy.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from conveyor.connectors.mirror.source import MirrorSourceConnector
from conveyor.log import Log, TopicPartition, open_log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.task_entry import run_task
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.runtime.worker_config import WorkerConfig

PARTITIONS = 3
TOPIC = "orders"
REMOTE = "A.orders"
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
CONVERTERS = {"key.converter": BYTE_ARRAY, "value.converter": BYTE_ARRAY, "header.converter": BYTE_ARRAY}


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


def copy_with_the_log(a: Log, b: Log, records: int, transactional: bool) -> None:
    """The ceiling: poll batches from A and send them to B as they are."""
    remote = "copy.orders"
    b.admin().create_topic(remote, partitions=PARTITIONS, exist_ok=True)
    consumer = a.consumer(
        "copy", "read_committed", **{"auto.offset.reset": "earliest", "max.poll.records": 500}
    )
    consumer.assign([TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
    producer = b.producer(transactional_id="copy" if transactional else None)
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
                    {TopicPartition(TOPIC, batch.partition): batch.next_offset}, "copy"
                )
                producer.commit_transaction()
            copied += len(batch)
    producer.flush()
    producer.close()
    consumer.close()


def run_connector_task(
    a: Log, b: Log, records: int, task_class: str, kind: TaskKind, settings: dict[str, str]
) -> None:
    """One mirror task in its task loop until B holds every record, then a graceful stop."""
    config = {
        "name": f"bench-{time.monotonic_ns()}",
        "task.class": task_class,
        "source.cluster.alias": "A",
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
    while stable_records(b, REMOTE) < records:
        time.sleep(0.02)
    control.set_target_state(TargetState.STOPPED)
    thread.join()


def timed(label: str, records: int, run: Callable[[], None]) -> float:
    start = time.perf_counter()
    run()
    rate = records / (time.perf_counter() - start)
    print(f"{label:<58} {rate:>12,.0f} records/s")
    return rate


def fresh(root: Path, name: str) -> Log:
    return open_log(f"embedded:{root / name}")


def main(records: int) -> None:
    records -= records % PARTITIONS
    with tempfile.TemporaryDirectory(prefix="mirror-bench-") as directory:
        root = Path(directory)
        a = fresh(root, "a")
        fill(a, records)
        print(f"{records:,} records of 100 bytes in {PARTITIONS} partitions, cluster A to cluster B")
        plain = timed(
            "log's own copy, plain", records, lambda: copy_with_the_log(a, fresh(root, "b0"), records, False)
        )
        ceiling = timed(
            "log's own copy, one transaction per batch (ceiling)",
            records,
            lambda: copy_with_the_log(a, fresh(root, "b1"), records, True),
        )
        sink = "conveyor.connectors.mirror.sink:MirrorSinkTask"
        base = {"topics": TOPIC, "consumer.override.log.url": a.url}
        transactional = timed(
            "sink design (KIP-656), transactional",
            records,
            lambda: run_connector_task(a, fresh(root, "b2"), records, sink, TaskKind.SINK, base),
        )
        timed(
            "sink design, not transactional",
            records,
            lambda: run_connector_task(
                a,
                fresh(root, "b3"),
                records,
                sink,
                TaskKind.SINK,
                {**base, "transactional.producer": "false"},
            ),
        )
        source_b = fresh(root, "b4")
        connector = MirrorSourceConnector()
        connector.start(
            {
                "source.cluster.log.url": a.url,
                "target.cluster.log.url": source_b.url,
                "source.cluster.alias": "A",
                "topics": TOPIC,
                "refresh.topics.enabled": "false",
                **CONVERTERS,
            }
        )
        (task_config,) = connector.task_configs(1)
        connector.stop()
        timed(
            "source design (KIP-618), exactly-once worker",
            records,
            lambda: run_connector_task(
                a,
                source_b,
                records,
                "conveyor.connectors.mirror.source:MirrorSourceTask",
                TaskKind.SOURCE,
                task_config,
            ),
        )
        print(f"transactional sink design: {transactional / ceiling:.0%} of the transactional copy, "
              f"{transactional / plain:.0%} of the plain copy")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 150_000)
