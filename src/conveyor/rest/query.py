"""Query-string values read as Kafka Connect's JAX-RS resources read them."""

from __future__ import annotations


def query_bool(value: str | None, default: bool) -> bool:
    """`true` in any case is true, anything else false (Java's `Boolean.valueOf`); absent is `default`."""
    if value is None:
        return default
    return value.lower() == "true"
