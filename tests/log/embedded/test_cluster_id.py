"""The embedded log's cluster id: made once, kept in the log's directory."""

from __future__ import annotations

from pathlib import Path

from conveyor.log import open_log


def test_a_log_reopened_from_its_directory_keeps_its_cluster_id(tmp_path: Path) -> None:
    first = open_log(f"embedded:{tmp_path}")
    made = first.admin().cluster_id()
    first.close()
    again = open_log(f"embedded:{tmp_path}")
    try:
        assert again.admin().cluster_id() == made
    finally:
        again.close()


def test_two_logs_have_different_cluster_ids(tmp_path: Path) -> None:
    one, other = open_log(f"embedded:{tmp_path / 'a'}"), open_log(f"embedded:{tmp_path / 'b'}")
    try:
        assert one.admin().cluster_id() != other.admin().cluster_id()
    finally:
        one.close()
        other.close()
