"""The Kafka backend beside confluent-kafka's own clients, on the same real broker, in the same run.

Transactional batch produce (``send_batch`` in transactions against librdkafka's ``produce_batch`` in
transactions) and read_committed consume (``poll_batch`` against ``Consumer.consume`` reading each
record's offset, key, value, headers and timestamp, which is what ``poll_batch`` hands over; and, for
reference, reading values only), each of the same records. Starts a broker with
``conveyor.kafka_broker`` unless ``CONVEYOR_KAFKA_BOOTSTRAP`` names one.

In a round, every consumer reads the same topic (one round the one Conveyor's producer wrote, the next
the one confluent-kafka's wrote), from offset 0, asking for no more records than are left to read (so
that none waits out its poll timeout for records that will never come). Beside each consumer's rate
over its whole run (made, assigned, read, closed), the bench splits it in two: the fixed cost (ms from
making the consumer to the first records in hand, plus closing it) and the steady rate (records/s from
the first hand-over to the last), which tells a cost per consumer from a cost per record.

    .venv/bin/python bench/kafka_bench.py [--records N] [--size BYTES] [--per-transaction N] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from conveyor.kafka_broker import KafkaBroker
from conveyor.log import Log, TopicPartition, open_log

PARTITIONS = 4


@contextmanager
def broker() -> Iterator[str]:
    external = os.environ.get("CONVEYOR_KAFKA_BOOTSTRAP")
    if external:
        yield external
        return
    with (
        tempfile.TemporaryDirectory(prefix="kafka-bench-") as directory,
        KafkaBroker(Path(directory), heap="1g") as running,
    ):
        yield running.bootstrap_servers


def conveyor_produce(log: Log, topic: str, values: list[bytes], per_transaction: int) -> None:
    producer = log.producer(f"bench-{topic}")
    producer.init_transactions()
    for start in range(0, len(values), per_transaction):
        producer.begin_transaction()
        producer.send_batch(topic, values[start : start + per_transaction])
        producer.commit_transaction()
    producer.close()


def librdkafka_produce(bootstrap: str, topic: str, values: list[bytes], per_transaction: int) -> None:
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "transactional.id": f"bench-{topic}",
            "linger.ms": 5,
            "batch.size": 1 << 20,
            "partitioner": "murmur2_random",
        }
    )
    producer.init_transactions(30)
    for start in range(0, len(values), per_transaction):
        producer.begin_transaction()
        messages = [{"value": value} for value in values[start : start + per_transaction]]
        while messages:
            producer.produce_batch(topic, messages)
            messages = [{"value": m["value"]} for m in messages if "_error" in m]
            if messages:
                producer.poll(0.05)
        producer.commit_transaction(30)


@dataclass(frozen=True)
class Reading:
    """When a consumer had its first records in hand, how many, when it had all, and when it was closed
    (seconds from the call that made it)."""

    first: float
    first_records: int
    done: float
    closed: float

    def fixed_ms(self) -> float:
        return (self.first + self.closed - self.done) * 1e3

    def steady_rate(self, records: int) -> float:
        return (records - self.first_records) / max(self.done - self.first, 1e-9)


def conveyor_consume(log: Log, topic: str, records: int) -> Reading:
    started = time.perf_counter()
    consumer = log.consumer(auto_offset_reset="earliest", max_poll_records=10_000)
    consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
    seen, first, first_records = 0, 0.0, 0
    while seen < records:
        for batch in consumer.poll_batch(timeout=1.0, max_records=min(10_000, records - seen)):
            seen += len(batch.values)
        if not first and seen:
            first, first_records = time.perf_counter(), seen
    done = time.perf_counter()
    consumer.close()
    return Reading(first - started, first_records, done - started, time.perf_counter() - started)


def librdkafka_consume(bootstrap: str, topic: str, records: int, values_only: bool = False) -> Reading:
    started = time.perf_counter()
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 100,
            # As the Kafka backend's consumers set them: the same fetching and connecting.
            "fetch.queue.backoff.ms": 10,
            "reconnect.backoff.ms": 20,
        }
    )
    consumer.assign([KafkaTopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    seen, first, first_records = 0, 0.0, 0
    while seen < records:
        for message in consumer.consume(min(10_000, records - seen), 0.05):
            if message.error() is None:
                if values_only:
                    message.value()
                else:
                    # What a record consumer reads of each record, as the log's consumer hands it over.
                    message.offset(), message.key(), message.value(), message.headers(), message.timestamp()
                seen += 1
        if not first and seen:
            first, first_records = time.perf_counter(), seen
    done = time.perf_counter()
    consumer.close()
    return Reading(first - started, first_records, done - started, time.perf_counter() - started)


def timed(run: Callable[..., Reading | None], *arguments: object) -> tuple[float, float, Reading | None]:
    """Seconds one call of ``run(*arguments)`` takes, the CPU seconds this process (its librdkafka
    threads included) spends meanwhile (on a shared machine it drifts much less with the load), and
    what the call returns."""
    started, cpu_started = time.perf_counter(), time.process_time()
    returned = run(*arguments)
    return time.perf_counter() - started, time.process_time() - cpu_started, returned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--per-transaction", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    values = [os.urandom(arguments.size) for _ in range(arguments.records)]
    results: dict[str, list[float]] = {}
    cpu_results: dict[str, list[float]] = {}
    readings: dict[str, list[Reading]] = {}
    with broker() as bootstrap:
        namespace = f"bench{uuid.uuid4().hex[:8]}."
        log = open_log(f"kafka://{bootstrap}?namespace={namespace}")
        admin = log.admin()
        for round_number in range(arguments.rounds + 1):  # the first round warms the JVM up, unreported
            ours, theirs = f"ours-{round_number}", f"theirs-{round_number}"
            admin.create_topic(ours, PARTITIONS)
            admin.create_topic(theirs, PARTITIONS)
            read = theirs if round_number % 2 else ours
            per_transaction, records = arguments.per_transaction, arguments.records
            runs: dict[str, tuple[Callable[..., Reading | None], tuple[object, ...]]] = {
                "produce (Conveyor send_batch, transactional)": (
                    conveyor_produce,
                    (log, ours, values, per_transaction),
                ),
                "produce (confluent-kafka produce_batch, transactional)": (
                    librdkafka_produce,
                    (bootstrap, namespace + theirs, values, per_transaction),
                ),
                "consume (Conveyor poll_batch, read_committed)": (conveyor_consume, (log, read, records)),
                "consume (confluent-kafka consume, read_committed)": (
                    librdkafka_consume,
                    (bootstrap, namespace + read, records),
                ),
                "consume (confluent-kafka consume, values only)": (
                    librdkafka_consume,
                    (bootstrap, namespace + read, records, True),
                ),
            }
            # Every other round runs confluent-kafka's clients first, so that neither side always goes
            # first after the other's writes.
            order = list(runs)
            if round_number % 2:
                order = [order[1], order[0], order[3], order[4], order[2]]
            measured = {path: timed(runs[path][0], *runs[path][1]) for path in order}
            if round_number:
                for path in runs:
                    wall, cpu, reading = measured[path]
                    results.setdefault(path, []).append(arguments.records / wall)
                    cpu_results.setdefault(path, []).append(cpu * 1e6 / arguments.records)
                    if reading is not None:
                        readings.setdefault(path, []).append(reading)
        log.close()
    print(
        f"{arguments.records} records of {arguments.size} B, {arguments.per_transaction} per transaction, "
        f"{PARTITIONS} partitions; median of {arguments.rounds} rounds (records/s; CPU us per record)"
    )
    medians = {path: statistics.median(rates) for path, rates in results.items()}
    cpu_medians = {path: statistics.median(costs) for path, costs in cpu_results.items()}
    for path, rate in medians.items():
        print(f"  {path:58s} {rate:>12,.0f} {cpu_medians[path]:>8.2f}")
    paths = list(medians)
    for ours, theirs in ((paths[0], paths[1]), (paths[2], paths[3]), (paths[2], paths[4])):
        share = medians[ours] / medians[theirs]
        # On a shared machine the load drifts between rounds: each round's own ratio shows it.
        rounds = ", ".join(f"{a / b:.0%}" for a, b in zip(results[ours], results[theirs], strict=True))
        print(
            f"  {ours.split(' (')[0]}: Conveyor at {share:.0%} of {theirs.split(' (')[1].rstrip(')')}"
            f" (each round: {rounds}); CPU per record {cpu_medians[ours] / cpu_medians[theirs]:.0%} of it"
        )
    print("consume split: fixed cost (ms to the first records, plus closing); steady rate (records/s)")
    steady = {
        path: [reading.steady_rate(arguments.records) for reading in taken]
        for path, taken in readings.items()
    }
    for path, taken in readings.items():
        fixed = statistics.median(reading.fixed_ms() for reading in taken)
        print(f"  {path:58s} {fixed:>8.1f} ms {statistics.median(steady[path]):>12,.0f}")
    ours, theirs = paths[2], paths[3]
    rounds = ", ".join(f"{a / b:.0%}" for a, b in zip(steady[ours], steady[theirs], strict=True))
    share = statistics.median(steady[ours]) / statistics.median(steady[theirs])
    print(f"  consume, steady: Conveyor at {share:.0%} of consume, read_committed (each round: {rounds})")


if __name__ == "__main__":
    main()
