"""Generator source -> log: at-least-once beside exactly-once, with the log's raw batch append as ceiling.

Modes: at-least-once; exactly-once with a transaction per poll (`transaction.boundary=poll`, the
default); exactly-once with `transaction.boundary=interval` and `transaction.boundary.interval.ms=100`
(a transaction per 100 ms, some twenty polls: an interval of the worker's `offset.flush.interval.ms`,
1 s, would add up to a second of waiting for the last commit to a run of about one second).
Three figures per mode, all measured in this run on this machine:
- ceiling: the log's batch append of the same 100-byte values, in transactions of `--batch` records;
- loop: the source task loop run in this process (converters, offsets, commits; no Spark), timed
  until every record is readable (read_committed) in the topic;
- spark: the real product path, a standalone worker running the task as a Spark job, timed from the
  connector's creation until every record is readable (read_committed) in the topic.

Run: .venv/bin/python bench/pipeline_bench.py [--records N] [--batch N] [--no-spark] [--modes ...]
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
MODES = {
    "alos": "at-least-once",
    "eos": "exactly-once",
    "eos-interval": "exactly-once, interval 100 ms",
}
"""Each mode's short name (topics, directories) and its label in the table."""


def connector_config(records: int, batch: int, topic: str, mode: str = "alos") -> dict[str, str]:
    config = {
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
    if mode == "eos-interval":
        config |= {"transaction.boundary": "interval", "transaction.boundary.interval.ms": "100"}
    return config


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


def task_loop(log_url: str, records: int, batch: int, mode: str) -> tuple[float, float]:
    """Records/s of the source task loop in this process, and its CPU microseconds per record.

    The CPU time is the process's (the loop's thread and the producer's linger thread alike) less that of
    the thread watching for the end: a figure the machine's load moves far less than the rate."""
    topic = f"loop-{mode}"
    exactly_once = mode != "alos"
    config = connector_config(records, batch, topic, mode)
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
        """Stop the clocks once every record is readable (read_committed), then stop the task.

        The loop itself returns later: its last poll finds nothing and waits up to the generator's
        ``idle_wait_seconds`` before it sees the stop, a wait that is no part of the throughput."""
        watching = time.thread_time()
        while control.metrics.get("source-record-write-total", 0) < records:
            time.sleep(0.002)
        admin, partition = log.admin(), TopicPartition(topic, 0)
        while admin.list_offsets([partition])[partition].last_stable < records:
            time.sleep(0.002)
        finished.extend((time.perf_counter(), time.process_time() - (time.thread_time() - watching)))
        control.set_target_state(TargetState.STOPPED)

    with open_log(log_url) as log:
        loop = SourceTaskLoop(spec, control, log, GeneratorSourceTask())
        watcher = threading.Thread(target=stop_when_done, args=(log,), daemon=True)
        started, cpu_started = time.perf_counter(), time.process_time()
        watcher.start()
        loop.run()
        watcher.join()
        return records / (finished[0] - started), (finished[1] - cpu_started) / records * 1e6


def through_spark(data_dir: Path, records: int, batch: int, mode: str) -> float:
    """Records/s of the same task run by a standalone worker as a Spark job."""
    from conveyor.cli.worker_process import StandaloneWorker

    props = worker_props(f"embedded:{data_dir / mode}", mode != "alos")
    props |= {"data.dir": str(data_dir / mode), "listeners": "http://127.0.0.1:0"}
    topic = f"spark-{mode}"
    with StandaloneWorker(WorkerConfig.from_props(props)) as worker:
        assert worker.herder is not None
        started = time.perf_counter()
        worker.herder.put_connector_config(
            "bench", connector_config(records, batch, topic, mode), allow_replace=False
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
    parser.add_argument(
        "--modes", nargs="+", choices=list(MODES), default=list(MODES), help="the modes to run"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="conveyor-bench-") as directory:
        root = Path(directory)
        with open_log(f"embedded:{root / 'ceiling'}") as log:
            top = ceiling(log, args.records, args.batch)
        rows = [("log batch append (ceiling)", top)]
        cpu: dict[str, float] = {}
        for mode in args.modes:
            log_url = f"embedded:{root / ('loop-' + mode)}"
            rate, cpu[f"task loop, {MODES[mode]}"] = task_loop(log_url, args.records, args.batch, mode)
            rows.append((f"task loop, {MODES[mode]}", rate))
        if not args.no_spark:
            warm_up_spark()
            for mode in args.modes:
                rows.append(
                    (f"Spark task, {MODES[mode]}", through_spark(root, args.records, args.batch, mode))
                )
    print(f"\n{args.records:,} records of {VALUE_SIZE} bytes, 1 task, {args.batch} records per poll")
    print(f"{'path':44} {'records/s':>12} {'MB/s':>8} {'of ceiling':>11} {'CPU us/record':>14}")
    for name, rate in rows:
        cpu_figure = f"{cpu[name]:14.2f}" if name in cpu else ""
        print(f"{name:44} {rate:12,.0f} {rate * VALUE_SIZE / 1e6:8.1f} {rate / top:11.0%} {cpu_figure}")
    by_name = dict(rows)
    for path in ("task loop", "Spark task"):
        alos = by_name.get(f"{path}, at-least-once")
        for mode in ("eos", "eos-interval"):
            eos = by_name.get(f"{path}, {MODES[mode]}")
            if alos and eos:
                print(f"{path}: {MODES[mode]} runs at {eos / alos:.0%} of at-least-once")
    alos_cpu = cpu.get(f"task loop, {MODES['alos']}")
    for mode in ("eos", "eos-interval"):
        eos_cpu = cpu.get(f"task loop, {MODES[mode]}")
        if alos_cpu and eos_cpu:
            print(
                f"task loop: {MODES[mode]} costs {eos_cpu / alos_cpu:.0%} of at-least-once's CPU per record"
            )


if __name__ == "__main__":
    main()
