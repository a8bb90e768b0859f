"""Kafka clients while their broker is down: a producer that cannot settle still closes, so that what
holds it (a task ending after its transaction failed) can end too."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.kafka_broker import KafkaBroker
from conveyor.log import open_log
from conveyor.log.errors import LogError

CLOSE_BOUND_S = 120.0
"""Far above the client's own timeouts (8 s to deliver, 30 s to abort): only a close that waits for the
broker to come back overruns it."""


@pytest.fixture
def stopped_broker(tmp_path: Path) -> Iterator[KafkaBroker]:
    """A broker of the test's own (the session's is shared), which the test stops."""
    with KafkaBroker(tmp_path / "broker") as broker:
        yield broker


def test_a_transactional_producer_whose_transaction_failed_in_an_outage_closes_without_the_broker(
    stopped_broker: KafkaBroker,
) -> None:
    with open_log(f"kafka://{stopped_broker.bootstrap_servers}?producer.delivery.timeout.ms=8000") as log:
        log.admin().create_topic("records", 1)
        producer = log.producer(transactional_id="outage", **{"transaction.timeout.ms": 16_000})
        producer.init_transactions()
        producer.begin_transaction()
        producer.send("records", b"before")
        stopped_broker.stop()
        producer.send("records", b"during")
        with pytest.raises(LogError):
            producer.commit_transaction_nowait()

        closing = threading.Thread(target=producer.close, daemon=True)
        closing.start()
        closing.join(CLOSE_BOUND_S)
        assert not closing.is_alive(), "the producer's close waited for the broker to come back"
