"""A transactional writer run as its own process by the multi-process tests.

Usage: log_process_worker.py URL TOPIC TRANSACTIONAL_ID WRITER TRANSACTIONS RECORDS [hold | abort-every=K]
Writes TRANSACTIONS transactions of RECORDS records (value ``writer:transaction:record``) spread over the
topic's partitions, flushing mid-transaction so records reach the log before the commit, and prints
``committed N`` after each commit. With ``abort-every=K`` every K-th transaction (N % K == K - 1) is
aborted instead. With ``hold`` it then opens one more transaction, appends its records, prints ``open``
and waits to be killed. TRANSACTIONS of -1 means forever.
"""

from __future__ import annotations

import sys
import time

from conveyor.log import open_log


def main(argv: list[str]) -> None:
    url, topic, transactional_id, writer, transactions, records = argv[:6]
    hold = argv[6:] == ["hold"]
    abort_every = int(argv[6].removeprefix("abort-every=")) if argv[6:7] and argv[6] != "hold" else 0
    log = open_log(url)
    producer = log.producer(transactional_id, transaction_timeout_ms=60_000)
    producer.init_transactions()
    partitions = producer.partitions_for(topic)
    number = 0
    while int(transactions) < 0 or number < int(transactions):
        write_transaction(producer, topic, partitions, f"{writer}:{number}", int(records))
        if abort_every and number % abort_every == abort_every - 1:
            producer.abort_transaction()
        else:
            producer.commit_transaction()
            print(f"committed {number}", flush=True)
        number += 1
    if hold:
        write_transaction(producer, topic, partitions, f"{writer}:{number}", int(records))
        print("open", flush=True)
        time.sleep(600)


def write_transaction(producer: object, topic: str, partitions: int, prefix: str, records: int) -> None:
    from conveyor.log import Producer

    assert isinstance(producer, Producer)
    producer.begin_transaction()
    for record in range(records):
        producer.send(topic, f"{prefix}:{record}".encode(), partition=record % partitions)
        if record % 7 == 6:
            producer.flush()
    producer.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
