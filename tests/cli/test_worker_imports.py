"""What a worker imports to start: nothing heavy that only some connectors use (pyarrow and numpy come with
the Spark data source and the streaming sinks, on first use)."""

from __future__ import annotations

import subprocess
import sys


def _after_importing(module: str, expression: str) -> str:
    """What ``expression`` prints in a fresh interpreter that has imported ``module``."""
    return subprocess.run(
        [sys.executable, "-c", f"import sys, {module}; print({expression})"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_a_worker_starts_without_importing_pyarrow_or_numpy() -> None:
    imported = "sorted(m for m in ('pyarrow', 'numpy') if m in sys.modules)"
    assert _after_importing("conveyor.cli.worker_process", imported) == "[]"


def test_the_spark_data_source_class_is_still_importable_from_its_package() -> None:
    assert (
        _after_importing("conveyor.spark.datasource", "conveyor.spark.datasource.ConveyorDataSource.name()")
        == "conveyor"
    )
