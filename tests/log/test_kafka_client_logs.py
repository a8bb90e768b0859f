"""librdkafka's log lines reach Python logging, and a line repeated by every reconnect is written once
a minute, not at every attempt."""

from __future__ import annotations

import logging
import time

import pytest

from conveyor.kafka_broker.jvm import free_port
from conveyor.log.kafka.client_logs import CLIENT_LOGGER, RepeatedLines
from conveyor.log.kafka.producer import KafkaLogProducer
from conveyor.log.kafka.settings import KafkaSettings

CONNECT_FAILED = (
    "[thrd:127.0.0.1:9/bootstrap]: 127.0.0.1:9/bootstrap: Connect to ipv4#127.0.0.1:9 failed: "
    "Connection refused (after {}ms in state CONNECT)"
)


def record(client: int, took_ms: int) -> logging.LogRecord:
    return logging.LogRecord(
        CLIENT_LOGGER.name,
        logging.ERROR,
        __file__,
        0,
        "%s [%s] %s",
        ("FAIL", f"rdkafka#producer-{client}", CONNECT_FAILED.format(took_ms)),
        None,
    )


def test_a_line_repeated_by_every_client_within_the_interval_is_let_through_once() -> None:
    now = [0.0]
    lines = RepeatedLines(60.0, clock=lambda: now[0])
    passed = []
    for attempt in range(1_000):
        now[0] = attempt * 0.012
        line = record(client=attempt % 7, took_ms=attempt % 3)
        if lines.filter(line):
            passed.append(line.getMessage())
    assert len(passed) == 1


def test_the_next_line_let_through_counts_those_held_back() -> None:
    now = [0.0]
    lines = RepeatedLines(60.0, clock=lambda: now[0])
    for _ in range(5):
        lines.filter(record(1, 0))
    now[0] = 61.0
    line = record(1, 0)
    assert lines.filter(line)
    assert line.getMessage().endswith("(4 more like this in the last 60 s)")


def test_different_lines_are_each_let_through() -> None:
    lines = RepeatedLines(60.0, clock=lambda: 0.0)
    other = logging.LogRecord(CLIENT_LOGGER.name, logging.ERROR, __file__, 0, "%s", ("other",), None)
    assert lines.filter(record(1, 0)) and lines.filter(other)


def test_a_log_client_that_cannot_reach_its_broker_says_so_once_through_python_logging(
    caplog: pytest.LogCaptureFixture,
) -> None:
    producer = KafkaLogProducer(KafkaSettings.from_url(f"kafka://127.0.0.1:{free_port()}"), None, {})
    with caplog.at_level(logging.INFO, CLIENT_LOGGER.name):
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            producer.flush()
            time.sleep(0.05)
    producer.close()
    failed = [r for r in caplog.records if r.name == CLIENT_LOGGER.name and "failed" in r.getMessage()]
    assert len(failed) == 1, [r.getMessage() for r in failed]
