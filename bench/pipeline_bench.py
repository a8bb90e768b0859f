"""Generator source -> log: at-least-once beside exactly-once, with the log's raw batch append as ceiling.

Three figures per mode, all measured in this run on this machine:
- ceiling: the log's batch append of the same 100-byte values, in transactions of `--batch` records;
- loop: the source task loop run in this process (converters, offsets, commits; no Spark), timed
  until every record is readable (read_committed) in the topic;
- spark: the real product path, a standalone worker running the task as a Spark job, timed from the
  connector's creation until every record is readable (read_committed) in the topic.

Run: .venv/bin/python bench/pipeline_bench.py [--records N] [--batch N] [--no-spark]
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from conveyor.connectors import GeneratorSourceConnector, GeneratorSourceTask
from conveyor.log import Log, TopicPartition, open_log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig

STRING = "org.apache.kafka.connect.storage.StringConverter"
VALUE_SIZE = 100


def connector_config(records: int, batch: int, topic: str) -> dict[str, str]:
    return {
        "name": "bench",
        "connector.class": "GeneratorSourceConnector",
        "tasks.max": "1",
        "topic": topic,
        "records": str(records),
        "record.size": str(VALUE_SIZE),
        "batch.size": str(batch),
        "key.converter": STRING,
        "value.converter": STRING,
    }


def worker_props(log_url: str, exactly_once: bool) -> dict[str, str]:
    return {
        "log.url": log_url,
        "group.id": "bench",
        "exactly.once.source.support": "enabled" if exactly_once else "disabled",
        "offset.flush.interval.ms": "1000",
        "key.converter": STRING,
        "value.converter": STRING,
        "header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    }


def ceiling(log: Log, records: int, batch: int) -> float:
    """Records/s of transactional batch appends of ready-made 100-byte values."""
    topic = "ceiling"
    log.admin().create_topic(topic)
    values = [b"v" * VALUE_SIZE] * batch
    producer = log.producer(transactional_id="ceiling")
    producer.init_transactions()
    started = time.perf_counter()
    for _ in range(records // batch):
        producer.begin_transaction()
        producer.send_batch(topic, values, partition=0)
        producer.commit_transaction()
    elapsed = time.perf_counter() - started
    producer.close()
    return (records // batch) * batch / elapsed


def task_loop(log_url: str, records: int, batch: int, exactly_once: bool) -> float:
    """Records/s of the source task loop in this process."""
    topic = f"loop-{'eos' if exactly_once else 'alos'}"
    config = connector_config(records, batch, topic)
    connector = GeneratorSourceConnector()
    connector.start(config)
    spec = TaskSpec(
        TaskId("bench", 0),
        TaskKind.SOURCE,
        config,
        connector.task_configs(1)[0],
        WorkerConfig.from_props(worker_props(log_url, exactly_once)),
    )
    control = LocalTaskControl()
    finished: list[float] = []

    def stop_when_done(log: Log) -> None:
        """Stop the clock once every record is readable (read_committed), then stop the task.

        The loop itself returns later: its last poll finds nothing and waits up to the generator's
        ``idle_wait_seconds`` before it sees the stop, a wait that is no part of the throughput."""
        while control.metrics.get("source-record-write-total", 0) < records:
            time.sleep(0.002)
        admin, partition = log.admin(), TopicPartition(topic, 0)
        while admin.list_offsets([partition])[partition].last_stable < records:
            time.sleep(0.002)
        finished.append(time.perf_counter())
        control.set_target_state(TargetState.STOPPED)

    with open_log(log_url) as log:
        loop = SourceTaskLoop(spec, control, log, GeneratorSourceTask())
        watcher = threading.Thread(target=stop_when_done, args=(log,), daemon=True)
        started = time.perf_counter()
        watcher.start()
        loop.run()
        watcher.join()
        return records / (finished[0] - started)


def through_spark(data_dir: Path, records: int, batch: int, exactly_once: bool) -> float:
    """Records/s of the same task run by a standalone worker as a Spark job."""
    from conveyor.cli.worker_process import StandaloneWorker

    mode = "eos" if exactly_once else "alos"
    props = worker_props(f"embedded:{data_dir / mode}", exactly_once)
    props |= {"data.dir": str(data_dir / mode), "listeners": "http://127.0.0.1:0"}
    topic = f"spark-{mode}"
    with StandaloneWorker(WorkerConfig.from_props(props)) as worker:
        assert worker.herder is not None
        started = time.perf_counter()
        worker.herder.put_connector_config(
            "bench", connector_config(records, batch, topic), allow_replace=False
        )
        admin = worker.log.admin()
        while True:
            if topic in admin.list_topics():
                end = admin.list_offsets([TopicPartition(topic, 0)])[TopicPartition(topic, 0)].last_stable
                if end >= records:
                    break
            time.sleep(0.01)
        return records / (time.perf_counter() - started)


def warm_up_spark() -> None:
    """Start the SparkSession and its Python workers before anything is timed."""
    from conveyor.spark.session import get_or_create_session

    get_or_create_session().sparkContext.parallelize(range(4), 4).count()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument(
        "--batch", type=int, default=2000, help="records per poll and per ceiling transaction"
    )
    parser.add_argument(
        "--no-spark", action="store_true", help="skip the Spark runs (about 15 s of start-up)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="conveyor-bench-") as directory:
        root = Path(directory)
        with open_log(f"embedded:{root / 'ceiling'}") as log:
            top = ceiling(log, args.records, args.batch)
        rows = [("log batch append (ceiling)", top)]
        for exactly_once in (False, True):
            name = "exactly-once" if exactly_once else "at-least-once"
            log_url = f"embedded:{root / ('loop-eos' if exactly_once else 'loop-alos')}"
            rows.append((f"task loop, {name}", task_loop(log_url, args.records, args.batch, exactly_once)))
        if not args.no_spark:
            warm_up_spark()
            for exactly_once in (False, True):
                name = "exactly-once" if exactly_once else "at-least-once"
                rows.append(
                    (f"Spark task, {name}", through_spark(root, args.records, args.batch, exactly_once))
                )
    print(f"\n{args.records:,} records of {VALUE_SIZE} bytes, 1 task, {args.batch} records per poll")
    print(f"{'path':34} {'records/s':>12} {'MB/s':>8} {'of ceiling':>11}")
    for name, rate in rows:
        print(f"{name:34} {rate:12,.0f} {rate * VALUE_SIZE / 1e6:8.1f} {rate / top:11.0%}")
    by_name = dict(rows)
    for path in ("task loop", "Spark task"):
        alos, eos = by_name.get(f"{path}, at-least-once"), by_name.get(f"{path}, exactly-once")
        if alos and eos:
            print(f"{path}: exactly-once runs at {eos / alos:.0%} of at-least-once")


if __name__ == "__main__":
    main()
