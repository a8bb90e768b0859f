"""docs/kafka.md runs as pasted: its bash blocks, taken from the page itself, start a real Apache Kafka
broker and a distributed worker on it, move lines through Kafka and stop both.

As the quickstart's test does: in a temporary directory that stands for a fresh clone, with the page's
ports and scratch directory swapped for free ones so the test shares the machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.kafka_broker.jvm import free_port
from pasted_docs import bash_blocks, fixed_waits, run_pasted

PAGE = Path(__file__).parent.parent / "docs" / "kafka.md"
PAGE_SCRATCH = "/tmp/conveyor-kafka"
BOUND_S = 1200


def test_the_kafka_page_opens_with_a_worker_on_kafka_in_five_lines() -> None:
    first = bash_blocks(PAGE)[0]
    assert len(first.strip().splitlines()) == 5
    assert "conveyor distributed" in first


def test_no_kafka_page_command_waits_a_fixed_time() -> None:
    assert fixed_waits(bash_blocks(PAGE)) == []


@pytest.mark.timeout(BOUND_S + 120)
def test_the_kafka_page_commands_run_as_pasted(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    script = "\n".join(bash_blocks(PAGE)).replace(PAGE_SCRATCH, str(scratch))
    script = script.replace("127.0.0.1:8083", f"127.0.0.1:{free_port()}")
    broker_port = free_port()
    script = script.replace("--port 9092", f"--port {broker_port}").replace(":9092", f":{broker_port}")
    ran = run_pasted(script, tmp_path, {}, BOUND_S)
    output = ran.output
    assert ran.returncode == 0, f"the page failed (or ran past {BOUND_S} s):\n{output[-4000:]}"
    assert (scratch / "out.txt").read_text().splitlines() == ["hello", "kafka"]
    assert "bootstrap.servers" in (scratch / "worker.properties").read_text()
