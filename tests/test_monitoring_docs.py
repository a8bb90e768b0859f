"""docs/monitoring.md lists every metric a worker publishes, and the Grafana dashboard uses only those."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conveyor.metrics.metric_groups import GROUPS, TASK_MEMORY_LIMIT_NAME, TASK_MEMORY_NAME, prometheus_name

DOCS = Path(__file__).parent.parent / "docs"
PUBLISHED = {prometheus_name(group.name, metric) for group in GROUPS for metric in group.metrics}
CONVEYORS_OWN = {TASK_MEMORY_NAME, TASK_MEMORY_LIMIT_NAME}


def test_the_monitoring_doc_lists_every_published_metric() -> None:
    text = (DOCS / "monitoring.md").read_text()
    assert [name for name in sorted(PUBLISHED | CONVEYORS_OWN) if f"`{name}" not in text] == []


def test_the_grafana_dashboard_queries_only_published_metrics_and_most_of_them() -> None:
    dashboard = json.loads((DOCS / "grafana" / "conveyor-connect.json").read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    used = {name for expr in expressions for name in re.findall(r"kafka_connect_[a-z_]+", expr)}
    assert used - PUBLISHED == set()
    assert len(used) >= len(PUBLISHED) // 2
