"""Reading a worker's `GET /metrics` as Prometheus would: samples by name and labels."""

from __future__ import annotations

import math

import httpx
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: httpx.Client) -> Samples:
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    """The sample's value; None if the worker does not publish it."""
    return samples.get((name, frozenset(labels.items())))


def measured(sample: float | None) -> bool:
    """Published and not NaN (Kafka's "nothing measured yet")."""
    return sample is not None and not math.isnan(sample)
