"""A subscribed consumer run as its own process by the multi-process group tests.

Usage: consumer_process_worker.py URL GROUP TOPIC STRATEGY
Subscribes to TOPIC in GROUP with ``partition.assignment.strategy`` STRATEGY and polls until killed,
printing every rebalance callback as ``assigned|revoked|lost P,P,...`` (partition numbers).
"""

from __future__ import annotations

import sys

from conveyor.log import RebalanceListener, TopicPartition, open_log


class PrintingListener(RebalanceListener):
    def _print(self, call: str, partitions: set[TopicPartition]) -> None:
        print(call, ",".join(str(tp.partition) for tp in sorted(partitions)), flush=True)

    def on_partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        self._print("assigned", partitions)

    def on_partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        self._print("revoked", partitions)

    def on_partitions_lost(self, partitions: set[TopicPartition]) -> None:
        self._print("lost", partitions)


def main(url: str, group_id: str, topic: str, strategy: str) -> None:
    consumer = open_log(url).consumer(
        group_id,
        heartbeat_interval_ms=100,
        session_timeout_ms=3_000,
        max_poll_interval_ms=10_000,
        partition_assignment_strategy=strategy,
    )
    consumer.subscribe([topic], PrintingListener())
    while True:
        consumer.poll(timeout=0.05)


if __name__ == "__main__":
    main(*sys.argv[1:5])
