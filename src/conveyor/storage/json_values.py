"""JSON as Kafka Connect's internal JsonConverter writes it (schemas disabled): compact, UTF-8."""

from __future__ import annotations

import json
from typing import Any

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def to_json_bytes(value: Any) -> bytes:
    """Serialize ``value`` without whitespace, non-ASCII characters kept as UTF-8 (as Jackson does)."""
    return _ENCODER.encode(value).encode("utf-8")


def from_json_bytes(data: bytes) -> Any:
    """Parse JSON bytes written by Conveyor or by Kafka Connect."""
    return json.loads(data)
