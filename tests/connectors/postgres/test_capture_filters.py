"""The order in which the change data capture source snapshots the tables its filters select."""

from __future__ import annotations

from conveyor.connectors.postgres.cdc_config import CaptureFilters


def test_tables_rank_by_the_first_include_list_entry_they_match() -> None:
    filters = CaptureFilters.from_config({"table.include.list": "public.zeta,public.a.*,public.*"})
    tables = ["alpha", "beta", "zeta", "another"]
    assert sorted(tables, key=lambda table: filters.include_rank("public", table)) == [
        "zeta",
        "alpha",
        "another",
        "beta",
    ]


def test_without_an_include_list_every_table_ranks_the_same() -> None:
    filters = CaptureFilters.from_config({"table.exclude.list": "public.b"})
    assert {filters.include_rank("public", table) for table in ("a", "c")} == {0}
