"""The Python processes Spark starts: the installed pyspark (not Spark's zipped copy), and the interpreter the
worker names."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from conveyor.spark.session import executor_python


def test_python_workers_import_pyspark_from_the_installed_package(spark: SparkSession) -> None:
    where = spark.sparkContext.parallelize([0], 1).map(lambda _: str(__import__("pyspark").__file__))
    (location,) = where.collect()
    assert ".zip" not in location
    assert location.endswith("pyspark/__init__.py")


def test_python_workers_have_no_jar_on_their_path(spark: SparkSession) -> None:
    def _jars(_: object) -> list[str]:  # defined here: Spark ships it by value
        import sys

        return [entry for entry in sys.path if entry.endswith(".jar")]

    (jars,) = spark.sparkContext.parallelize([0], 1).map(_jars).collect()

    assert jars == []


def test_the_workers_spark_pyspark_python_is_what_executors_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3")
    assert executor_python({"spark.pyspark.python": "/opt/conveyor/venv/bin/python"}) == (
        "/opt/conveyor/venv/bin/python"
    )


def test_without_spark_pyspark_python_executors_run_pyspark_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3")
    assert executor_python({}) == "/usr/bin/python3"
