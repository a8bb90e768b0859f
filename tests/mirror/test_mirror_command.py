"""`conveyor mirror` refuses an mm2.properties it cannot run, saying why, before starting anything."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from conveyor.cli import main


def run_mirror(tmp_path: Path, text: str) -> tuple[int, str]:
    properties = tmp_path / "mm2.properties"
    properties.write_text(text)
    result = CliRunner().invoke(main, ["mirror", str(properties)])
    return result.exit_code, result.output


def test_a_file_without_an_enabled_flow_is_refused(tmp_path: Path) -> None:
    code, output = run_mirror(tmp_path, "clusters = A, B\nA.log.url = embedded:/a\nB.log.url = embedded:/b\n")
    assert code != 0 and "No replication flow is enabled" in output


def test_a_file_without_clusters_is_refused(tmp_path: Path) -> None:
    code, output = run_mirror(tmp_path, "A->B.enabled = true\n")
    assert code != 0 and "clusters" in output
