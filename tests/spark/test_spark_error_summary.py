"""A Spark job's failure is summed up by the line that says what happened; the whole text is the trace."""

from __future__ import annotations

from conveyor.spark.task_jobs import spark_error_summary

PY4J_ERROR = """An error occurred while calling z:org.apache.spark.api.python.PythonRDD.collectAndServe.
: org.apache.spark.SparkException: Job 2 cancelled because SparkContext was shut down
\tat org.apache.spark.scheduler.DAGScheduler.$anonfun$cleanUpAfterSchedulerStop$1(DAGScheduler.scala:1253)
\tat scala.collection.mutable.HashSet.foreach(HashSet.scala:79)
"""


def test_a_py4j_error_is_summed_up_by_sparks_exception_line() -> None:
    assert spark_error_summary(RuntimeError(PY4J_ERROR)) == (
        "org.apache.spark.SparkException: Job 2 cancelled because SparkContext was shut down"
    )


def test_an_error_without_text_is_summed_up_by_its_type() -> None:
    assert spark_error_summary(ConnectionResetError()) == "ConnectionResetError"
