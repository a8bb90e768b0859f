"""Filter: drop every record it is applied to (normally guarded by a predicate)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conveyor.api import Transformation
from conveyor.data import ConnectRecord


class Filter(Transformation[ConnectRecord]):
    """Drops all records; pair it with a predicate to drop only the records that match."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return None

    def apply_batch(self, records: Sequence[ConnectRecord]) -> list[ConnectRecord]:
        return []
