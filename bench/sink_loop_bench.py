"""The FileStreamSink task loop on the Kafka backend: CPU per record, beside confluent-kafka's consumer.

N short lines (``line-000000001``, as FileStreamSource writes them: no key, no headers) are committed in
transactions to a one-partition topic; then, in turn,

- the sink loop: ``SinkTaskLoop`` running ``FileStreamSinkTask`` (string converters, read_committed, the
  connector's consumer group), run in this process until every record was put, then stopped;
- the put alone: the same records' batches, consumed once beforehand, through the loop's ``from_log`` (or
  ``put_batch``) and the task's ``put``, with no consumer;
- the floor: confluent-kafka's ``Consumer.consume`` read_committed, each value decoded and written as a
  line to a file, which is what any Python sink of these records has to do.

Figures are CPU microseconds per record of this process (librdkafka's threads included), which drift much
less than wall time on a shared machine. Starts a broker with ``conveyor.kafka_broker`` unless
``CONVEYOR_KAFKA_BOOTSTRAP`` names one.

    .venv/bin/python bench/sink_loop_bench.py [--records N] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from confluent_kafka import Consumer as KafkaConsumer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from conveyor.api import BatchSinkTask, ColumnSinkTask
from conveyor.api import TopicPartition as ApiPartition
from conveyor.connectors.file.sink import FileStreamSinkTask
from conveyor.log import Log, RecordBatch, TopicPartition, open_log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig
from kafka_bench import broker

STRING = "org.apache.kafka.connect.storage.StringConverter"
PER_TRANSACTION = 10_000


def produce(log: Log, topic: str, records: int) -> None:
    log.admin().create_topic(topic, 1)
    producer = log.producer(f"bench-{topic}")
    producer.init_transactions()
    for start in range(0, records, PER_TRANSACTION):
        producer.begin_transaction()
        values = [f"line-{n:09d}".encode() for n in range(start, min(records, start + PER_TRANSACTION))]
        producer.send_batch(topic, values, partition=0)
        producer.commit_transaction()
    producer.close()


def sink_spec(log_url: str, topic: str, output: Path, name: str) -> TaskSpec:
    config = {
        "name": name,
        "connector.class": "FileStreamSinkConnector",
        "tasks.max": "1",
        "topics": topic,
        "file": str(output),
        "key.converter": STRING,
        "value.converter": STRING,
    }
    worker = WorkerConfig.from_props(
        {
            "log.url": log_url,
            "group.id": "bench",
            "offset.flush.interval.ms": "1000",
            "key.converter": STRING,
            "value.converter": STRING,
        }
    )
    return TaskSpec(TaskId(name, 0), TaskKind.SINK, config, dict(config), worker)


def sink_loop(log_url: str, topic: str, records: int, output: Path) -> None:
    """The task loop until the task has been handed every record."""
    control = LocalTaskControl()
    name = f"sink-{uuid.uuid4().hex[:8]}"

    def stop_when_done() -> None:
        while control.metrics.get("sink-record-send-total", 0) < records:
            time.sleep(0.01)
        control.set_target_state(TargetState.STOPPED)

    with open_log(log_url) as log:
        loop = SinkTaskLoop(sink_spec(log_url, topic, output, name), control, log, FileStreamSinkTask())
        watcher = threading.Thread(target=stop_when_done, daemon=True)
        watcher.start()
        loop.run()


def consumed_batches(log: Log, topic: str, records: int) -> list[RecordBatch]:
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    batches: list[RecordBatch] = []
    while sum(map(len, batches)) < records:
        batches.extend(consumer.poll_batch(timeout=1.0))
    consumer.close()
    return batches


def put_alone(log_url: str, topic: str, batches: list[RecordBatch], output: Path) -> None:
    """What the loop does with each consumed batch, without the consumer: convert, then put."""
    with open_log(log_url) as log:
        loop = SinkTaskLoop(
            sink_spec(log_url, topic, output, "put-alone"), LocalTaskControl(), log, FileStreamSinkTask()
        )
        task = loop.task
        task.start(loop.spec.task_config)
        for batch in batches:
            if isinstance(task, BatchSinkTask) and loop.batch_task is not None:
                task.put_batch(batch)
            elif isinstance(task, ColumnSinkTask) and loop.column_task is not None:
                columns = loop.pipeline.columns_from_log(batch)
                assert columns is not None
                task.put_columns(columns)
            else:
                task.put(loop.pipeline.from_log(batch))
        task.flush({ApiPartition(topic, 0): batches[-1].next_offset})
        task.stop()
        loop.consumer.close()


def librdkafka_to_file(bootstrap: str, topic: str, records: int, output: Path) -> None:
    consumer = KafkaConsumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 100,
            "fetch.queue.backoff.ms": 10,
        }
    )
    consumer.assign([KafkaTopicPartition(topic, 0, 0)])
    seen = 0
    with open(output, "a", encoding="utf-8") as file:
        while seen < records:
            messages = [m for m in consumer.consume(10_000, 0.05) if m.error() is None]
            file.write("".join(f"{m.value().decode('utf-8', 'replace')}\n" for m in messages))
            seen += len(messages)
    consumer.close()


def cpu_us_per_record(run: Callable[[], None], records: int) -> float:
    started = time.process_time()
    run()
    return (time.process_time() - started) * 1e6 / records


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    records = args.records
    results: dict[str, list[float]] = {}
    with broker() as bootstrap, tempfile.TemporaryDirectory(prefix="sink-bench-") as directory:
        root = Path(directory)
        namespace = f"bench{uuid.uuid4().hex[:8]}."
        log_url = f"kafka://{bootstrap}?namespace={namespace}"
        topic = "lines"
        with open_log(log_url) as log:
            produce(log, topic, records)
            batches = consumed_batches(log, topic, records)
        runs: dict[str, Callable[[Path], None]] = {
            "sink loop (SinkTaskLoop + FileStreamSinkTask)": lambda out: sink_loop(
                log_url, topic, records, out
            ),
            "put alone (conversion + put, batches consumed before)": lambda out: put_alone(
                log_url, topic, batches, out
            ),
            "floor (confluent-kafka consume, decode, write)": lambda out: librdkafka_to_file(
                bootstrap, namespace + topic, records, out
            ),
        }
        for round_number in range(args.rounds + 1):  # the first round warms up, unreported
            for path, run in runs.items():
                output = root / f"{round_number}-{len(results.get(path, []))}-{hash(path)}.out"
                cost = cpu_us_per_record(lambda run=run, output=output: run(output), records)
                lines = sum(1 for _ in output.open(encoding="utf-8"))
                if lines < records:
                    raise SystemExit(f"{path}: {lines} lines written of {records}")
                if round_number:
                    results.setdefault(path, []).append(cost)
                output.unlink()
    print(f"{records:,} lines of 14 bytes, one partition, read_committed; median of {args.rounds} rounds")
    floor = statistics.median(results["floor (confluent-kafka consume, decode, write)"])
    for path, costs in results.items():
        cost = statistics.median(costs)
        each = ", ".join(f"{c:.2f}" for c in costs)
        print(f"  {path:55s} {cost:6.2f} CPU us/record ({cost / floor:4.1f}x the floor; rounds: {each})")


if __name__ == "__main__":
    main()
