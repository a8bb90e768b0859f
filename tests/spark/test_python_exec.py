"""The Python processes Spark starts import the installed pyspark, not Spark's zipped copy of it."""

from __future__ import annotations

from pyspark.sql import SparkSession


def test_python_workers_import_pyspark_from_the_installed_package(spark: SparkSession) -> None:
    where = spark.sparkContext.parallelize([0], 1).map(lambda _: str(__import__("pyspark").__file__))
    (location,) = where.collect()
    assert ".zip" not in location
    assert location.endswith("pyspark/__init__.py")
