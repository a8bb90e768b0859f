"""Throughput of the embedded log: transactional produce and read_committed consume.

Prints records/s and MB/s of each path beside the raw sequential write rate of the same bytes to a
plain file (write + fsync), measured in the same run on the same disk.

    .venv/bin/python bench/log_bench.py [--records N] [--sizes 100 1024] [--per-transaction 1000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conveyor.log import Log, TopicPartition, open_log
from conveyor.log.columns import binary_array


@dataclass(frozen=True)
class Measurement:
    path: str
    value_size: int
    records: int
    seconds: float

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds

    @property
    def megabytes_per_second(self) -> float:
        return self.records * self.value_size / self.seconds / 1e6


def timed(
    path: str, value_size: int, records: int, run: Callable[..., None], *arguments: object
) -> Measurement:
    """Time one call of ``run(*arguments)`` that moves ``records`` records of ``value_size`` bytes."""
    started = time.perf_counter()
    run(*arguments)
    return Measurement(path, value_size, records, time.perf_counter() - started)


def raw_write(directory: Path, value_size: int, records: int, per_transaction: int, fsync_each: bool) -> None:
    """Append the same bytes to a plain file, one chunk per transaction, then fsync."""
    chunk = b"x" * (value_size * per_transaction)
    with open(directory / f"raw-{value_size}-{fsync_each}.bin", "wb", buffering=0) as file:
        for _ in range(records // per_transaction):
            file.write(chunk)
            if fsync_each:
                os.fsync(file.fileno())
        os.fsync(file.fileno())


def produce_per_record(log: Log, topic: str, value: bytes, records: int, per_transaction: int) -> None:
    producer = log.producer(f"bench-send-{topic}")
    producer.init_transactions()
    for _ in range(records // per_transaction):
        producer.begin_transaction()
        for _ in range(per_transaction):
            producer.send(topic, value, partition=0)
        producer.commit_transaction()
    producer.close()


def produce_batches(log: Log, topic: str, value: bytes, records: int, per_transaction: int) -> None:
    producer = log.producer(f"bench-batch-{topic}")
    producer.init_transactions()
    values = [value] * per_transaction
    for _ in range(records // per_transaction):
        producer.begin_transaction()
        producer.send_batch(topic, values, partition=0)
        producer.commit_transaction()
    producer.close()


def consume_records(log: Log, topic: str, expected: int) -> None:
    consumer = log.consumer(isolation_level="read_committed", auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    seen = 0
    while seen < expected:
        seen += len(consumer.poll(max_records=10_000))
    consumer.close()


def consume_batches(log: Log, topic: str, expected: int) -> None:
    """Every value read as ``bytes``, as a task loop reads them."""
    consumer = log.consumer(isolation_level="read_committed", auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    seen = 0
    while seen < expected:
        for batch in consumer.poll_batch(max_records=10_000):
            seen += len([value for value in batch.values if value is not None])
    consumer.close()


def consume_batches_to_arrow(log: Log, topic: str, expected: int) -> None:
    """Every value handed to Arrow, as Spark's read tasks take them."""
    consumer = log.consumer(isolation_level="read_committed", auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    seen = 0
    while seen < expected:
        seen += sum(len(binary_array(batch.values)) for batch in consumer.poll_batch(max_records=10_000))
    consumer.close()


def run(
    directory: Path, sizes: list[int], records: int, per_transaction: int, sync: str
) -> list[Measurement]:
    log = open_log(f"embedded:{directory / 'log'}?sync={sync}")
    admin = log.admin()
    results = []
    for size in sizes:
        value = b"v" * size
        per_record_topic, batch_topic = f"send-{size}", f"batch-{size}"
        admin.create_topic(per_record_topic)
        admin.create_topic(batch_topic)
        paths: list[tuple[str, Callable[..., None], tuple[object, ...]]] = [
            ("raw write, one fsync", raw_write, (directory, size, records, per_transaction, False)),
            ("raw write, fsync per txn", raw_write, (directory, size, records, per_transaction, True)),
            (
                "txn produce, send()",
                produce_per_record,
                (log, per_record_topic, value, records, per_transaction),
            ),
            (
                "txn produce, send_batch()",
                produce_batches,
                (log, batch_topic, value, records, per_transaction),
            ),
            ("read_committed, poll()", consume_records, (log, batch_topic, records)),
            ("read_committed, poll_batch()", consume_batches, (log, batch_topic, records)),
            ("read_committed, to Arrow", consume_batches_to_arrow, (log, batch_topic, records)),
        ]
        results += [timed(name, size, records, function, *arguments) for name, function, arguments in paths]
    log.close()
    return results


def print_table(results: list[Measurement], per_transaction: int, sync: str) -> None:
    print(f"embedded log, synchronous={sync}, {per_transaction} records per transaction")
    print(f"{'path':<30} {'value':>6} {'records':>9} {'records/s':>12} {'MB/s':>9} {'vs raw':>7}")
    baseline: dict[int, float] = {}
    for result in results:
        if result.path == "raw write, one fsync":
            baseline[result.value_size] = result.megabytes_per_second
        ratio = result.megabytes_per_second / baseline[result.value_size]
        print(
            f"{result.path:<30} {result.value_size:>6} {result.records:>9} "
            f"{result.records_per_second:>12,.0f} {result.megabytes_per_second:>9.1f} {ratio:>6.0%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=200_000, help="records per path and value size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1024], help="value sizes in bytes")
    parser.add_argument("--per-transaction", type=int, default=1000, help="records per transaction")
    parser.add_argument(
        "--sync", choices=["normal", "full"], default="normal", help="SQLite synchronous mode"
    )
    parser.add_argument("--dir", type=Path, default=None, help="where to write (a fresh temporary directory)")
    binary_array([b"warm-up"])  # loads Arrow before anything is timed
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=arguments.dir) as directory:
        results = run(
            Path(directory), arguments.sizes, arguments.records, arguments.per_transaction, arguments.sync
        )
    print_table(results, arguments.per_transaction, arguments.sync)


if __name__ == "__main__":
    main()
