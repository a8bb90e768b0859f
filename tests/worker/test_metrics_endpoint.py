"""`GET /metrics` publishes Kafka Connect's metric groups, named as the Prometheus JMX exporter names
them, with the values the worker's tasks measured."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from scraping import Samples, measured, scrape, value

from .support import (
    JSON_CONVERTER,
    create_connector,
    delete_all_connectors,
    exactly_once,
    file_lines,
    generator_config,
    rest_client,
    running_worker,
    unique,
    wait_for_states,
    wait_until,
)

SOURCE = "kafka_connect_source_task_metrics_"
SINK = "kafka_connect_sink_task_metrics_"
TASK = "kafka_connect_connector_task_metrics_"
ERRORS = "kafka_connect_task_error_metrics_"
WORKER = "kafka_connect_connect_worker_metrics_"
REBALANCE = "kafka_connect_connect_worker_rebalance_metrics_"
RECORDS = 500
BATCH = 50
WINDOW_S = 60.0


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("metrics"), **exactly_once(True)) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


def _generator(client: httpx.Client, **settings: str) -> str:
    name = unique("generated")
    config = generator_config(unique("numbers"), records=str(RECORDS), **{"batch.size": str(BATCH)})
    create_connector(client, name, config | settings)
    wait_for_states(client, name, "RUNNING", ["RUNNING"] * int(settings.get("tasks.max", "1")))
    return name


def _when(client: httpx.Client, condition: str, check: Callable[[Samples], bool]) -> Samples:
    """The first scrape for which `check(samples)` holds."""

    def scraped() -> Samples | None:
        samples = scrape(client)
        return samples if check(samples) else None

    return wait_until(scraped, condition)


def test_source_task_metrics_count_polled_and_written_records_and_rate_them_over_the_window(
    client: httpx.Client,
) -> None:
    name = _generator(client)
    labels = {"connector": name, "task": "0"}
    samples = _when(
        client,
        "every record written",
        lambda s: value(s, SOURCE + "source_record_write_total", **labels) == RECORDS,
    )
    assert value(samples, SOURCE + "source_record_poll_total", **labels) == RECORDS
    poll_rate = value(samples, SOURCE + "source_record_poll_rate", **labels)
    assert poll_rate is not None and RECORDS / WINDOW_S <= poll_rate <= RECORDS / (WINDOW_S / 2)
    assert value(samples, TASK + "batch_size_max", **labels) == BATCH
    assert value(samples, TASK + "batch_size_avg", **labels) == BATCH
    assert measured(value(samples, SOURCE + "poll_batch_max_time_ms", **labels))
    assert measured(value(samples, SOURCE + "poll_batch_avg_time_ms", **labels))


def test_committed_transactions_are_measured_by_their_record_count(client: httpx.Client) -> None:
    name = _generator(client, **{"transaction.boundary": "poll"})
    labels = {"connector": name, "task": "0"}
    samples = _when(
        client,
        "every record committed",
        lambda s: (
            value(s, SOURCE + "source_record_write_total", **labels) == RECORDS
            and value(s, SOURCE + "source_record_active_count", **labels) == 0
        ),
    )
    assert value(samples, SOURCE + "transaction_size_min", **labels) == BATCH
    assert value(samples, SOURCE + "transaction_size_max", **labels) == BATCH
    assert value(samples, SOURCE + "transaction_size_avg", **labels) == BATCH
    active_max = value(samples, SOURCE + "source_record_active_count_max", **labels)
    assert active_max is not None and BATCH <= active_max <= 2 * BATCH  # a batch polled beside a commit
    assert value(samples, TASK + "offset_commit_success_percentage", **labels) == 1.0
    assert measured(value(samples, TASK + "offset_commit_max_time_ms", **labels))


def test_task_and_connector_status_and_the_time_paused_follow_a_pause(client: httpx.Client) -> None:
    name = _generator(client, records="-1", rate="100")
    labels = {"connector": name, "task": "0"}
    samples = scrape(client)
    assert value(samples, TASK + "status", status="running", **labels) == 1
    assert value(samples, "kafka_connect_connector_metrics_status", connector=name, status="running") == 1
    assert value(samples, TASK + "running_ratio", **labels) == 1.0
    assert client.put(f"/connectors/{name}/pause").status_code == 202
    wait_for_states(client, name, "PAUSED", ["PAUSED"])
    samples = _when(
        client, "time spent paused", lambda s: (value(s, TASK + "pause_ratio", **labels) or 0) > 0
    )
    assert value(samples, TASK + "status", status="paused", **labels) == 1
    assert value(samples, "kafka_connect_connector_metrics_status", connector=name, status="paused") == 1
    running, paused = (value(samples, TASK + m, **labels) for m in ("running_ratio", "pause_ratio"))
    assert running is not None and paused is not None and running + paused == pytest.approx(1.0, abs=1e-3)
    assert value(samples, WORKER + "connector_paused_task_count", connector=name) == 1
    assert value(samples, WORKER + "connector_running_task_count", connector=name) == 0


def test_connector_metrics_name_the_connectors_class_and_type(client: httpx.Client) -> None:
    name = _generator(client)
    samples = scrape(client)
    type_labels = {"connector": name, "connector_type": "source"}
    assert value(samples, "kafka_connect_connector_metrics_connector_type", **type_labels) == 1
    classes = [
        dict(labels)["connector_class"]
        for (sample, labels) in samples
        if sample == "kafka_connect_connector_metrics_connector_class" and dict(labels)["connector"] == name
    ]
    assert len(classes) == 1 and classes[0].endswith("GeneratorSourceConnector")


def test_worker_metrics_count_its_connectors_tasks_and_their_startups(client: httpx.Client) -> None:
    before = scrape(client)
    first, second = _generator(client), _generator(client, **{"tasks.max": "2"})
    samples = scrape(client)
    assert value(samples, WORKER + "connector_count") == 2
    assert value(samples, WORKER + "task_count") == 3
    assert value(samples, WORKER + "connector_total_task_count", connector=first) == 1
    assert value(samples, WORKER + "connector_running_task_count", connector=second) == 2
    started = {
        metric: (value(samples, WORKER + metric) or 0) - (value(before, WORKER + metric) or 0)
        for metric in (
            "connector_startup_attempts_total",
            "connector_startup_success_total",
            "task_startup_attempts_total",
            "task_startup_success_total",
            "task_startup_failure_total",
        )
    }
    assert started == {
        "connector_startup_attempts_total": 2,
        "connector_startup_success_total": 2,
        "task_startup_attempts_total": 3,
        "task_startup_success_total": 3,
        "task_startup_failure_total": 0,
    }


def test_a_standalone_worker_publishes_that_it_never_rebalanced(client: httpx.Client) -> None:
    samples = scrape(client)
    assert value(samples, REBALANCE + "completed_rebalances_total") == 0
    assert value(samples, REBALANCE + "rebalancing") == 0
    assert value(samples, REBALANCE + "connect_protocol", connect_protocol="standalone") == 1


def test_sink_task_metrics_count_read_and_put_records_partitions_and_commits(
    client: httpx.Client, worker: StandaloneWorker, tmp_path: Path
) -> None:
    topic = unique("lines")
    worker.log.admin().create_topic(topic, partitions=2)
    with worker.log.producer() as producer:
        for n in range(RECORDS):
            producer.send(topic, str(n).encode(), partition=n % 2)
    name, sink = unique("file-sink"), tmp_path / "sink.txt"
    create_connector(client, name, {"connector.class": "FileStreamSink", "topics": topic, "file": str(sink)})
    wait_until(lambda: len(file_lines(sink)) == RECORDS, "every record in the sink file")
    labels = {"connector": name, "task": "0"}
    samples = _when(
        client,
        "the records committed",
        lambda s: (
            value(s, SINK + "sink_record_active_count", **labels) == 0
            and value(s, SINK + "sink_record_send_total", **labels) == RECORDS
        ),
    )
    assert value(samples, SINK + "sink_record_read_total", **labels) == RECORDS
    assert value(samples, SINK + "partition_count", **labels) == 2
    read_rate = value(samples, SINK + "sink_record_read_rate", **labels)
    assert read_rate is not None and RECORDS / WINDOW_S <= read_rate <= RECORDS / (WINDOW_S / 2)
    completions = value(samples, SINK + "offset_commit_completion_total", **labels)
    skips = value(samples, SINK + "offset_commit_skip_total", **labels)
    assert completions is not None and completions >= 1
    assert value(samples, SINK + "offset_commit_seq_no", **labels) == completions + (skips or 0)
    assert measured(value(samples, SINK + "put_batch_max_time_ms", **labels))


def test_task_error_metrics_count_tolerated_errors_and_dead_letter_queue_writes(
    client: httpx.Client, worker: StandaloneWorker, tmp_path: Path
) -> None:
    topic, bad = unique("half-bad"), 5
    worker.log.admin().create_topic(topic, partitions=1)
    with worker.log.producer() as producer:
        for n in range(2 * bad):
            producer.send(topic, json.dumps(n).encode() if n % 2 == 0 else b"not json {")
    name = unique("tolerant")
    config = {
        "connector.class": "FileStreamSink",
        "topics": topic,
        "file": str(tmp_path / "sink.txt"),
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
        "errors.tolerance": "all",
        "errors.log.enable": "true",
        "errors.deadletterqueue.topic.name": unique("dlq"),
    }
    create_connector(client, name, config)
    labels = {"connector": name, "task": "0"}
    samples = _when(
        client,
        "the bad records skipped",
        lambda s: value(s, ERRORS + "total_records_skipped", **labels) == bad,
    )
    assert value(samples, ERRORS + "total_record_errors", **labels) == bad
    assert value(samples, ERRORS + "total_record_failures", **labels) == bad
    assert value(samples, ERRORS + "total_errors_logged", **labels) == bad
    assert value(samples, ERRORS + "deadletterqueue_produce_requests", **labels) == bad
    assert value(samples, ERRORS + "deadletterqueue_produce_failures", **labels) == 0
    assert (value(samples, ERRORS + "last_error_timestamp", **labels) or 0) > 0
