"""Every view of the console renders what the REST API reports."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect
from tests.rest.connectors import create_connector, file_source_config, unique_name
from tests.worker.connectors import FAILING_SOURCE, FAILURE_MESSAGE, ODD_RECORD_REJECTER

import waiting

from .console import open_connector, open_view, status, wait_for_states


def generator_config(topic: str, **settings: str) -> dict[str, str]:
    return {"connector.class": "GeneratorSourceConnector", "topic": topic, "tasks.max": "1", **settings}


LAG_WAIT_S = 120.0
"""A loaded machine may take long to poll a file and report a lag; the wait only bounds a hang."""


def task_metric(client: httpx.Client, name: str, metric: str) -> object:
    """A metric of the connector's first task, once it reports one."""
    tasks = status(client, name)["tasks"]
    return tasks[0].get("metrics", {}).get(metric) if tasks else None


def test_connectors_view_lists_each_connector_with_its_state_type_tasks_and_worker(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = unique_name("listed")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("listed-topic")))
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    worker = status(client, name)["tasks"][0]["worker_id"]
    open_view(page)
    row = page.locator(f'#connectors tr[data-connector="{name}"]')
    expect(row.locator(".connector-state")).to_have_text("RUNNING")
    expect(row).to_contain_text("source")
    expect(row).to_contain_text(worker)
    expect(row.locator(".task-chip")).to_have_count(1)


def test_workers_view_shows_each_worker_with_the_tasks_it_runs(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = unique_name("placed")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("placed-topic")))
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    worker = status(client, name)["tasks"][0]["worker_id"]
    open_view(page, "workers")
    card = page.locator(f'.worker[data-worker="{worker}"]')
    expect(card).to_contain_text("1 connector, 1 task")
    expect(card.locator(".worker-tasks")).to_contain_text(f"{name}-0")


def test_workers_view_shows_each_workers_memory_cpu_spark_slots_and_spark_ui(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = unique_name("used")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("used-topic")))
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    [usage] = client.get("/conveyor/workers").json()
    open_view(page, "workers")
    card = page.locator(f'.worker[data-worker="{usage["worker_id"]}"]')
    expect(card.locator(".worker-memory")).to_have_text(re.compile(r"^\d+ MiB$"))
    expect(card.locator(".worker-cpu")).to_have_text(re.compile(r"^\d+% of a core$"))
    expect(card.locator(".worker-slots")).to_have_text(re.compile(rf"^1 of {usage['slots']['total']} in use"))
    if usage["spark_ui_url"] is None:
        expect(card).to_contain_text("Spark UI off")
    else:
        expect(card.locator("a.spark-ui")).to_have_attribute("href", usage["spark_ui_url"])


def test_connector_view_shows_each_task_its_state_and_its_worker(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = unique_name("detailed")
    config = {**file_source_config(tmp_path, topic=unique_name("detailed-topic")), "tasks.max": "1"}
    create_connector(client, name, config)
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    worker = status(client, name)["tasks"][0]["worker_id"]
    open_connector(page, name)
    expect(page.locator("#connector-state")).to_have_text("RUNNING")
    task = page.locator('#tasks tr[data-task="0"]')
    expect(task.locator(".task-state")).to_have_text("RUNNING")
    expect(task.locator(".task-worker")).to_have_text(worker)


def test_a_failed_task_shows_its_failure_trace(client: httpx.Client, page: Page) -> None:
    name = unique_name("failing")
    config = {"connector.class": FAILING_SOURCE, "tasks.max": "1", "fail.after.ms": "200"}
    create_connector(client, name, config)
    wait_for_states(client, name, "RUNNING", ["FAILED"])
    open_connector(page, name)
    expect(page.locator('#tasks tr[data-task="0"] .task-state')).to_have_text("FAILED")
    expect(page.locator('#tasks tr[data-trace="0"] .trace')).to_contain_text(FAILURE_MESSAGE)


def test_records_per_second_chart_draws_the_rate_the_tasks_report(client: httpx.Client, page: Page) -> None:
    name = unique_name("flowing")
    create_connector(client, name, generator_config(unique_name("flowing-topic"), rate="200"))
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    open_connector(page, name)
    chart = page.locator('figure[data-chart="rate"]')
    expect(chart.locator("path.line")).to_have_count(1)
    expect(chart.locator(".latest")).not_to_have_text("0 rec/s")
    expect(chart.locator(".latest")).to_contain_text("rec/s")


def test_lag_chart_shows_the_records_a_paused_sink_has_yet_to_read(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    source, sink, topic = unique_name("lines"), unique_name("lagging"), unique_name("lag-topic")
    source_config = file_source_config(tmp_path, topic=topic)
    create_connector(client, source, source_config)
    sink_config = {"connector.class": "FileStreamSink", "topics": topic, "file": str(tmp_path / "out.txt")}
    create_connector(client, sink, sink_config)
    waiting.wait_until(
        lambda: task_metric(client, sink, "sink-record-send-total") == 3, "3 lines in the sink"
    )
    client.put(f"/connectors/{sink}/pause")
    wait_for_states(client, sink, "PAUSED", ["PAUSED"])
    # The loop measures time paused only once it has paused its consumer: nothing appended after is read.
    waiting.wait_until(lambda: float(task_metric(client, sink, "pause-ratio") or 0) > 0, "the loop paused")
    with open(source_config["file"], "a") as lines:
        lines.write("fourth\nfifth\n")
    waiting.wait_until(
        lambda: task_metric(client, source, "source-record-write-total") == 5, "5 lines written", LAG_WAIT_S
    )
    try:
        waiting.wait_until(lambda: task_metric(client, sink, "records-lag") == 2, "a lag of 2", LAG_WAIT_S)
    except AssertionError as timed_out:
        reported = status(client, sink)["tasks"]
        raise AssertionError(f"{timed_out}; the sink's task reports {reported}") from None
    open_connector(page, sink)
    expect(page.locator('figure[data-chart="lag"] .latest')).to_have_text("2 records")


def test_a_source_has_no_lag_chart_since_the_end_of_what_it_reads_is_unknown(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = unique_name("unlagged")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("unlagged-topic")))
    open_connector(page, name)
    expect(page.locator('figure[data-chart="rate"]')).to_have_count(1)
    expect(page.locator('figure[data-chart="lag"]')).to_have_count(0)


def test_dead_letter_queue_count_shows_the_records_sent_to_it(client: httpx.Client, page: Page) -> None:
    name, dlq = unique_name("rejecting"), unique_name("dlq")
    config = generator_config(
        unique_name("even"),
        records="20",
        transforms="reject",
        **{
            "transforms.reject.type": ODD_RECORD_REJECTER,
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
        },
    )
    create_connector(client, name, config)
    open_connector(page, name)
    expect(page.locator("#dlq")).to_contain_text(f"10 records sent to {dlq}")
    open_view(page)
    expect(page.locator(f'#connectors tr[data-connector="{name}"] .dlq-count')).to_have_text("10")
