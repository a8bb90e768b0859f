"""The Python chain's output schema, sampled from the first records stored: what the query's plan needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.errors import ConnectError
from conveyor.log import TopicPartition, open_log
from conveyor.spark.streaming.python_chain import sample_output_schema

from .support import person, worker_config

TOPIC = "people"


def sample_after_a_bad_record(tmp_path: Path, tolerance: str) -> object:
    """The sampled schema of a topic whose one stored batch starts with a value the converter rejects."""
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        log.admin().create_topic(TOPIC, partitions=1)
        with log.producer() as producer:
            producer.send(TOPIC, b"{not json", key=b"bad")
            producer.send(TOPIC, person(1), key=b"1")
            producer.flush()
        config = {"connector.class": "SparkFileSink", "topics": TOPIC, "errors.tolerance": tolerance}
        return sample_output_schema(log, [TopicPartition(TOPIC, 0)], config, worker_config(tmp_path))


def test_a_record_the_converter_rejects_is_passed_over_under_errors_tolerance_all(tmp_path: Path) -> None:
    schema = sample_after_a_bad_record(tmp_path, "all")
    assert schema is not None and "email" in str(schema)


def test_a_record_the_converter_rejects_fails_the_sample_under_errors_tolerance_none(tmp_path: Path) -> None:
    with pytest.raises(ConnectError, match="Tolerance exceeded"):
        sample_after_a_bad_record(tmp_path, "none")
