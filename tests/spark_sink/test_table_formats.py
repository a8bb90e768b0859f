"""Which Delta Lake and Iceberg releases a worker loads for its Spark, how they are fetched, and what a
worker whose Spark has no release for them says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

from conveyor.spark.table_formats import (
    DELTA,
    DELTA_CATALOG,
    DELTA_EXTENSION,
    ICEBERG,
    ICEBERG_CATALOG_CLASS,
    TableFormatError,
    fetch_jars,
    missing_from_session,
    resolve,
    session_conf,
)

REPOSITORY = Path(__file__).resolve().parents[2]


def test_a_format_is_refused_on_a_spark_its_release_is_not_built_for_naming_artifact_and_failure() -> None:
    with pytest.raises(TableFormatError) as refused:
        resolve(["delta"], "4.3.0")
    message = str(refused.value)
    assert "io.delta:delta-spark_2.13:4.4.0" in message
    assert "built for Spark 4.2" in message
    assert "Spark 4.3.0" in message
    assert "NoSuchMethodError" in message


def test_iceberg_is_refused_on_spark_4_3_naming_its_runtime_jar() -> None:
    with pytest.raises(TableFormatError, match=re.escape("iceberg-spark-runtime-4.1_2.13:1.12.0")):
        resolve(["iceberg"], "4.3.0")


def test_iceberg_is_refused_on_every_spark_conveyor_runs_on() -> None:
    for version in ("4.2.1", "4.3.0"):
        with pytest.raises(TableFormatError, match="No Spark that Conveyor runs on"):
            resolve(["iceberg"], version)


def test_an_unknown_table_format_is_refused() -> None:
    with pytest.raises(TableFormatError, match="unknown table format 'hudi'"):
        resolve(["hudi"], "4.1.4")


def test_delta_is_loaded_on_spark_4_2() -> None:
    assert resolve(["Delta", " ", ""], "4.2.1") == [DELTA]


def test_delta_on_spark_4_3_is_told_to_run_on_pyspark_4_2() -> None:
    with pytest.raises(TableFormatError, match=re.escape("Run the worker with pyspark 4.2.x")):
        resolve(["delta"], "4.3.0")


def test_the_jars_are_fetched_with_maven_into_the_cache(tmp_path: Path) -> None:
    jars = {jar.name for jar in fetch_jars(DELTA, tmp_path)}
    assert jars == {"delta-spark_2.13-4.4.0.jar", "delta-storage-4.4.0.jar"}
    assert (tmp_path / "spark-delta-4.4.0" / ".complete").exists()


def test_the_session_settings_join_the_workers_own_jars_and_extensions(tmp_path: Path) -> None:
    conf = session_conf(
        {"spark.jars": "/opt/mine.jar", "spark.sql.extensions": "com.example.Extension"},
        ["delta"],
        None,
        tmp_path / "cache",
        spark_version="4.2.1",
    )
    jars = conf["spark.jars"].split(",")
    assert jars[0] == "/opt/mine.jar"
    assert {Path(jar).name for jar in jars[1:]} == {"delta-spark_2.13-4.4.0.jar", "delta-storage-4.4.0.jar"}
    assert conf["spark.sql.extensions"] == f"com.example.Extension,{DELTA_EXTENSION}"
    assert conf["spark.sql.catalog.spark_catalog"] == DELTA_CATALOG


def test_icebergs_catalog_is_a_hadoop_catalog_in_the_warehouse(tmp_path: Path) -> None:
    assert ICEBERG.session_conf(tmp_path) == {
        "spark.sql.catalog.iceberg": ICEBERG_CATALOG_CLASS,
        "spark.sql.catalog.iceberg.type": "hadoop",
        "spark.sql.catalog.iceberg.warehouse": str(tmp_path),
    }


def test_a_worker_without_table_formats_starts_its_session_with_no_extra_settings(tmp_path: Path) -> None:
    assert session_conf({"spark.executor.memory": "1g"}, [], None, tmp_path) == {
        "spark.executor.memory": "1g"
    }


def test_a_session_that_did_not_load_a_format_is_told_what_to_set() -> None:
    reason = missing_from_session({"spark.sql.extensions": "com.example.Extension"}, "delta")
    assert reason is not None and "add 'delta' to the worker's table.formats" in reason
    assert missing_from_session({"spark.sql.extensions": DELTA_EXTENSION}, "delta") is None


@pytest.mark.skipif(pyspark.__version__.startswith("4.2."), reason="Delta runs on Spark 4.2")
def test_a_worker_asked_for_a_format_its_spark_has_no_release_for_exits_before_starting(
    tmp_path: Path,
) -> None:
    properties = tmp_path / "worker.properties"
    properties.write_text(f"data.dir={tmp_path}\nlisteners=http://127.0.0.1:0\ntable.formats=delta\n")
    finished = subprocess.run(
        [sys.executable, "-m", "conveyor.cli", "standalone", "--no-status", str(properties)],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode != 0
    assert "table.formats=delta" in finished.stderr
    assert f"this worker runs Spark {pyspark.__version__}" in finished.stderr
    assert "Traceback" not in finished.stderr
