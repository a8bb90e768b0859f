"""The console as an operations console: the list's rates, sorting and filter, failures that stand out,
history from the worker, the topic browser, charts that keep their size, buttons by state, folded traces."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import Locator, Page, expect
from tests.rest.connectors import create_connector, file_source_config, unique_name
from tests.worker.connectors import FAILING_SOURCE, FAILURE_MESSAGE

import waiting

from .console import open_connector, open_view, wait_for_states


def generator(client: httpx.Client, prefix: str, rate: str = "100") -> str:
    name = unique_name(prefix)
    config = {"connector.class": "GeneratorSourceConnector", "topic": unique_name(prefix), "rate": rate}
    create_connector(client, name, config)
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    return name


def failed_source(client: httpx.Client) -> str:
    name = unique_name("broken")
    create_connector(
        client, name, {"connector.class": FAILING_SOURCE, "tasks.max": "1", "fail.after.ms": "200"}
    )
    wait_for_states(client, name, "RUNNING", ["FAILED"])
    return name


def sampled(client: httpx.Client, name: str) -> list[dict[str, float]]:
    samples = client.get("/conveyor/history").json()["samples"]
    return [sample["connectors"][name] for sample in samples if name in sample["connectors"]]


def row(page: Page, name: str) -> Locator:
    return page.locator(f'#connectors tr[data-connector="{name}"]')


def test_the_list_shows_each_connectors_records_per_second(client: httpx.Client, page: Page) -> None:
    name = generator(client, "listed-rate")
    open_view(page)
    expect(row(page, name).locator(".rate")).to_have_text(re.compile(r"^[1-9][0-9.]*$"))


def test_the_list_shows_a_sinks_lag(client: httpx.Client, page: Page, tmp_path: Path) -> None:
    topic, sink = unique_name("listed-lag"), unique_name("listed-sink")
    create_connector(client, unique_name("listed-lines"), file_source_config(tmp_path, topic=topic))
    create_connector(
        client, sink, {"connector.class": "FileStreamSink", "topics": topic, "file": str(tmp_path / "o")}
    )
    wait_for_states(client, sink, "RUNNING", ["RUNNING"])
    open_view(page)
    expect(row(page, sink).locator(".lag")).to_have_text(re.compile(r"^\d+$"))


def test_the_filter_shows_only_the_connectors_it_matches(client: httpx.Client, page: Page) -> None:
    kept, hidden = generator(client, "kept", rate="1"), generator(client, "hidden", rate="1")
    open_view(page)
    page.locator("#connector-filter").fill(kept)
    expect(row(page, kept)).to_have_count(1)
    expect(row(page, hidden)).to_have_count(0)


def test_sorting_by_name_twice_orders_the_connectors_the_other_way(client: httpx.Client, page: Page) -> None:
    names = sorted([generator(client, "sorted-a", rate="1"), generator(client, "sorted-b", rate="1")])
    open_view(page)
    listed = page.locator("#connectors tbody tr")
    page.locator('button[data-sort="Name"]').click()
    expect(listed).to_have_count(2)
    assert listed.evaluate_all("rows => rows.map(r => r.dataset.connector)") == names
    page.locator('button[data-sort="Name"]').click()
    expect(listed.first).to_have_attribute("data-connector", names[1])


def test_a_running_connector_with_a_failed_task_shows_failed_and_never_green(
    client: httpx.Client, page: Page
) -> None:
    name = failed_source(client)
    waiting.wait_until(
        lambda: client.get("/conveyor/history").json()["restarts"].get(name),
        "the failure sampled",
        timeout_s=90,
    )
    open_view(page)
    expect(row(page, name)).to_have_class("failing")
    expect(row(page, name).locator(".connector-state")).to_have_text("FAILED")
    expect(row(page, name).locator(".restart-note")).to_have_text("task 0 FAILED, 1 failure")
    expect(page.locator("#connectors-summary")).to_contain_text(f"1 of 1 connectors failing: {name}")


def test_a_page_opened_now_draws_the_samples_the_worker_took_before(client: httpx.Client, page: Page) -> None:
    name = generator(client, "remembered")
    waiting.wait_until(lambda: len(sampled(client, name)) >= 4, f"four samples of {name}", timeout_s=90)
    open_connector(page, name)
    line = page.locator('figure[data-chart="rate"] path.line')
    assert (line.get_attribute("d") or "").count("L") >= 3


def test_a_one_chart_page_keeps_the_charts_size(client: httpx.Client, page: Page) -> None:
    name = generator(client, "one-chart", rate="1")
    open_connector(page, name)
    chart = page.locator('figure[data-chart="rate"] svg')
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box is not None and box["height"] <= 240


def test_pause_is_disabled_and_resume_enabled_while_paused(client: httpx.Client, page: Page) -> None:
    name = generator(client, "paused-buttons", rate="1")
    client.put(f"/connectors/{name}/pause")
    wait_for_states(client, name, "PAUSED", ["PAUSED"])
    open_connector(page, name)
    expect(page.locator('.toolbar button[data-action="pause"]')).to_be_disabled()
    expect(page.locator('.toolbar button[data-action="resume"]')).to_be_enabled()


def test_resume_is_disabled_and_pause_enabled_while_running(client: httpx.Client, page: Page) -> None:
    name = generator(client, "running-buttons", rate="1")
    open_connector(page, name)
    expect(page.locator('.toolbar button[data-action="resume"]')).to_be_disabled()
    expect(page.locator('.toolbar button[data-action="pause"]')).to_be_enabled()


def test_a_trace_shows_the_message_and_the_users_frame_first_and_folds_the_traceback(
    client: httpx.Client, page: Page
) -> None:
    name = failed_source(client)
    open_connector(page, name)
    trace = page.locator('#tasks tr[data-trace="0"] .trace')
    expect(trace.locator(".trace-message")).to_have_text(f"RuntimeError: {FAILURE_MESSAGE}")
    expect(trace.locator(".trace-frame")).to_contain_text("tests/worker/connectors.py")
    expect(trace.locator(".trace-frame")).to_contain_text("raise RuntimeError(FAILURE_MESSAGE)")
    expect(trace.locator("details.trace-full pre")).to_be_hidden()
    trace.locator("details.trace-full summary").click()
    expect(trace.locator("details.trace-full pre")).to_contain_text("Traceback")


def test_the_topic_browser_lists_the_logs_topics(client: httpx.Client, page: Page, tmp_path: Path) -> None:
    topic = unique_name("shown-topic")
    create_connector(client, unique_name("shown"), file_source_config(tmp_path, topic=topic))
    waiting.wait_until(
        lambda: client.get(f"/conveyor/topics/{topic}").status_code == 200, f"{topic} created", timeout_s=60
    )
    open_view(page, "topics")
    expect(page.locator(f'#topics tr[data-topic="{topic}"]')).to_contain_text("1")


def test_the_topic_browser_shows_a_partitions_last_records_decoded(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    topic = unique_name("decoded-topic")
    create_connector(client, unique_name("decoded"), file_source_config(tmp_path, topic=topic))
    waiting.wait_until(
        lambda: (
            client.get(f"/conveyor/topics/{topic}").json().get("partitions", [{}])[0].get("end_offset") == 3
        ),
        f"3 records in {topic}",
        timeout_s=60,
    )
    open_view(page, f"topics/{topic}/0")
    expect(page.locator('#partitions tr[data-partition="0"] .end-offset')).to_have_text("3")
    expect(page.locator('#records-table tr[data-offset="0"] .record-value')).to_have_text("first")
    expect(page.locator('#records-table tr[data-offset="2"] .record-value')).to_have_text("third")
