"""A plugin's own metrics (KIP-877): names, tags, and what the runtime reads of them."""

from __future__ import annotations

import math

import pytest

from conveyor.api import PluginMetrics
from conveyor.api.plugin_metrics import monitor


def test_a_registered_metric_is_sampled_with_its_description_and_tags() -> None:
    metrics = PluginMetrics()
    count = [0]
    metrics.add_metric(metrics.metric_name("rows-total", "Rows read.", {"table": "orders"}), lambda: count[0])
    count[0] = 7
    assert metrics.samples() == [
        {"name": "rows-total", "description": "Rows read.", "tags": {"table": "orders"}, "value": 7.0}
    ]


def test_the_same_name_with_other_tags_is_another_metric() -> None:
    metrics = PluginMetrics()
    metrics.add_metric(metrics.metric_name("rows", tags={"table": "a"}), lambda: 1)
    metrics.add_metric(metrics.metric_name("rows", tags={"table": "b"}), lambda: 2)
    assert sorted(s["value"] for s in metrics.samples()) == [1.0, 2.0]


def test_registering_a_metric_twice_is_an_error() -> None:
    metrics = PluginMetrics()
    metrics.add_metric(metrics.metric_name("rows"), lambda: 1)
    with pytest.raises(ValueError, match="already registered"):
        metrics.add_metric(metrics.metric_name("rows"), lambda: 2)


@pytest.mark.parametrize("tag", ["connector", "task"])
def test_the_runtime_s_tags_cannot_be_set_by_a_plugin(tag: str) -> None:
    with pytest.raises(ValueError, match="set by the runtime"):
        PluginMetrics().metric_name("rows", tags={tag: "x"})


def test_a_metric_whose_function_fails_reads_as_nan() -> None:
    metrics = PluginMetrics()
    metrics.add_metric(metrics.metric_name("broken"), lambda: 1 / 0)
    assert math.isnan(metrics.samples()[0]["value"])


def test_a_removed_metric_is_no_longer_sampled() -> None:
    metrics = PluginMetrics()
    name = metrics.metric_name("rows")
    metrics.add_metric(name, lambda: 1)
    metrics.remove_metric(name)
    assert metrics.samples() == []


def test_a_monitorable_plugin_gets_metrics_tagged_with_its_place_in_the_task() -> None:
    class Counting:
        def with_plugin_metrics(self, metrics: PluginMetrics) -> None:
            metrics.add_metric(metrics.metric_name("seen-total"), lambda: 4)

    metrics = monitor(Counting(), {"transformation": "count"})
    assert metrics is not None
    assert metrics.samples()[0]["tags"] == {"transformation": "count"}


def test_a_plugin_that_is_not_monitorable_gets_no_metrics() -> None:
    assert monitor(object(), {"converter": "key"}) is None


def test_a_plugin_cannot_set_the_tag_of_its_place() -> None:
    with pytest.raises(ValueError, match="converter"):
        PluginMetrics({"converter": "key"}).metric_name("seen-total", tags={"converter": "mine"})
