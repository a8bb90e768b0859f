"""The worker's Spark JVM: sized for a worker by default, each option overridable by `spark.*` keys."""

from __future__ import annotations

from pyspark.sql import SparkSession

from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import driver_default_java_options


def _options(props: dict[str, str]) -> list[str]:
    return driver_default_java_options(WorkerConfig.from_props(props).spark_conf()).split()


def test_a_workers_jvm_runs_the_serial_collector_from_a_small_heap_compiling_only_what_runs_often() -> None:
    options = _options({})

    assert "-XX:+UseSerialGC" in options
    assert "-Xms32m" in options
    assert "-XX:NewRatio=5" in options
    assert "-XX:CompileThresholdScaling=10" in options


def test_a_workers_jvm_keeps_the_optimizing_compiler_for_the_jobs_it_runs() -> None:
    assert not [option for option in _options({}) if option.startswith("-XX:TieredStopAtLevel")]


def test_a_workers_own_default_java_options_replace_the_workers_defaults() -> None:
    assert _options({"spark.driver.defaultJavaOptions": "-XX:+UseG1GC"}) == ["-XX:+UseG1GC"]


def test_an_empty_default_java_options_leaves_spark_and_the_jvm_their_own_defaults() -> None:
    assert _options({"spark.driver.defaultJavaOptions": ""}) == []


def test_a_collector_chosen_in_extra_java_options_replaces_the_serial_collector() -> None:
    options = _options({"spark.driver.extraJavaOptions": "-XX:+UseParallelGC -Dx=1"})

    assert "-XX:+UseSerialGC" not in options
    assert "-Xms32m" in options


def test_the_sessions_jvm_starts_with_the_workers_java_options(spark: SparkSession) -> None:
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    management = jvm.java.lang.management.ManagementFactory
    arguments = list(management.getRuntimeMXBean().getInputArguments())
    collectors = [collector.getName() for collector in management.getGarbageCollectorMXBeans()]

    assert "-Xms32m" in arguments
    assert collectors == ["Copy", "MarkSweepCompact"]
