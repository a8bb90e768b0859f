"""The worker's SparkSession: the worker process is the Spark driver of its tasks."""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

from conveyor.kafka_broker.fetch import default_cache_dir
from conveyor.log_format import json_lines_wanted
from conveyor.spark import class_archive as class_archives
from conveyor.spark.class_archive import ClassArchive
from conveyor.spark.jvm_stderr import JvmStderr
from conveyor.spark.python_exec import python_for_spark

logger = logging.getLogger(__name__)

DEFAULT_SLOTS = 16
DEFAULT_TASK_ATTEMPTS = 4


def default_master(slots: int = DEFAULT_SLOTS, attempts: int = DEFAULT_TASK_ATTEMPTS) -> str:
    """`local[N,F]`: N slots for long-running tasks, and F attempts so a dead executor is re-run."""
    return f"local[{slots},{attempts}]"


def executor_python(conf: Mapping[str, str] | None = None) -> str:
    """The Python executors run: the worker's `spark.pyspark.python` (a path on the executors' machines),
    else `PYSPARK_PYTHON`, else this interpreter. PySpark hands executors `PYSPARK_PYTHON`, not the
    conf key, so the session sets one from the other."""
    return (conf or {}).get("spark.pyspark.python") or os.environ.get("PYSPARK_PYTHON") or python_for_spark()


SPARK_DEFAULTS: dict[str, str] = {}
"""Spark settings the worker gives its session unless its own `spark.*` properties say otherwise."""

LOG4J2_CONFIGS = {
    False: Path(__file__).with_name("log4j2.properties"),
    True: Path(__file__).with_name("log4j2-json.properties"),
}
"""Spark's JVM logging in the worker's format (text, or JSON lines), keyed by whether the worker logs JSON."""

DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
DRIVER_DEFAULT_JAVA_OPTIONS = "spark.driver.defaultJavaOptions"
"""Spark puts these before `spark.driver.extraJavaOptions` on its JVM's command line, so an option the
user gives in `extraJavaOptions` wins over the worker's default for it."""

SERIAL_COLLECTOR = "-XX:+UseSerialGC"
SMALL_JVM_OPTIONS: tuple[str, ...] = (
    SERIAL_COLLECTOR,
    "-Xms32m",
    "-XX:NewRatio=5",
    "-XX:MinHeapFreeRatio=10",
    "-XX:MaxHeapFreeRatio=30",
    "-XX:CompileThresholdScaling=10",
)
"""A JVM sized for a worker, which schedules long-running tasks and holds little: the serial collector
(G1's remembered sets and the young generation sized from the machine's memory took about 45 MB idle),
a small initial heap that grows on demand and gives back what a collection frees, a young generation
of a sixth of the heap rather than a third (about 12 MB less idle; it grows with the heap), and methods
compiled after ten times the calls: start-up's code, run a few times, stays interpreted (about 20 MB and
2 s of CPU less), while the loops of a job Spark runs in this JVM (a local executor writing Parquet) still
reach the optimizing compiler. The quick compiler alone saved 10 MB more but wrote Parquet 2.7 times
slower."""

_COLLECTOR_CHOICE = re.compile(r"-XX:\+Use\w+GC\b")


def driver_default_java_options(conf: Mapping[str, str]) -> str:
    """The worker's `spark.driver.defaultJavaOptions`: `SMALL_JVM_OPTIONS`. A
    `spark.driver.defaultJavaOptions` of the worker's own replaces them all;
    a collector chosen in `spark.driver.extraJavaOptions` replaces the serial one (the JVM refuses two)."""
    if DRIVER_DEFAULT_JAVA_OPTIONS in conf:
        return conf[DRIVER_DEFAULT_JAVA_OPTIONS]
    chosen_collector = _COLLECTOR_CHOICE.search(conf.get(DRIVER_JAVA_OPTIONS, "")) is not None
    return " ".join(o for o in SMALL_JVM_OPTIONS if not (o == SERIAL_COLLECTOR and chosen_collector))


def driver_java_options(conf: Mapping[str, str]) -> str:
    """The worker's `spark.driver.extraJavaOptions` with Conveyor's log4j2 configuration added, unless the
    worker names a log4j2 configuration of its own."""
    given = conf.get(DRIVER_JAVA_OPTIONS, "").strip()
    if "-Dlog4j2.configurationFile=" in given:
        return given
    config = LOG4J2_CONFIGS[json_lines_wanted()].resolve().as_uri()
    return f"{given} -Dlog4j2.configurationFile={config}".strip()


EXECUTOR_DAEMON_MODULE = "conveyor.spark.executor_daemon"
"""The executors' Python daemon (`spark.python.daemon.module`): pyspark's, with the task host imported."""


class NumpyOnceLoaded:
    """One of pyspark's py4j converters of numpy arrays and scalars, asked only once numpy is imported.

    pyspark's own, asked about every argument of a call into the JVM, imports numpy and with it pandas
    and pyarrow (about 60 MB of the driver) to find that the argument is no numpy value, which it cannot
    be while numpy is not imported.
    """

    def __init__(self, converter: Any) -> None:
        self.converter = converter

    def can_convert(self, obj: object) -> bool:
        return "numpy" in sys.modules and bool(self.converter.can_convert(obj))

    def convert(self, obj: object, gateway_client: object) -> object:
        return self.converter.convert(obj, gateway_client)


def load_numpy_converters_lazily() -> None:
    """Put pyspark's numpy converters of py4j arguments behind `NumpyOnceLoaded` (once per process)."""
    from py4j import protocol
    from pyspark.sql.types import NumpyArrayConverter, NumpyScalarConverter

    protocol.INPUT_CONVERTER[:] = [
        NumpyOnceLoaded(converter)
        if isinstance(converter, NumpyArrayConverter | NumpyScalarConverter)
        else converter
        for converter in protocol.INPUT_CONVERTER
    ]


def prepare_class_archive(conf: Mapping[str, str], cache_dir: Path | None = None) -> ClassArchive | None:
    """The worker's part in the archive of its JVM's classes (`class_archives`), in Conveyor's cache
    directory; None when the worker's own `spark.driver.defaultJavaOptions` replace Conveyor's defaults."""
    if DRIVER_DEFAULT_JAVA_OPTIONS in conf:
        return None
    java_options = f"{driver_default_java_options(conf)} {driver_java_options(conf)}"
    return class_archives.prepare(conf, java_options, cache_dir or default_cache_dir())


def name_planner_socket() -> None:
    """Tell Spark's JVM (through the environment it inherits) where this driver's planner server listens,
    when Spark runs Conveyor's launcher; the server itself starts with the first streaming query."""
    from conveyor.spark.planner_server import SOCKET_ENV, socket_path

    if os.environ["PYSPARK_PYTHON"] == python_for_spark() != sys.executable:
        os.environ[SOCKET_ENV] = str(socket_path())
    else:
        os.environ.pop(SOCKET_ENV, None)


JVM_EXIT_S = 10.0
"""How long a JVM that failed to start is given to have its last lines forwarded."""


def launch_jvm(options: Mapping[str, str]) -> None:
    """Start Spark's JVM with `options`, its stderr read by the worker (`JvmStderr`), unless this process
    has one already; the session then starts on it as it would on the JVM it launches itself."""
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway is not None:
            return
        stderr = JvmStderr()
        try:
            conf = SparkConf().setAll(list(options.items()))
            gateway = launch_gateway(conf, {"stderr": stderr.write_fd})  # type: ignore[no-untyped-call]
        except BaseException:
            stderr.launched()
            stderr.join(JVM_EXIT_S)
            raise
        stderr.launched()
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm


def get_or_create_session(
    master: str | None = None,
    app_name: str = "conveyor",
    conf: Mapping[str, str] | None = None,
    class_archive: ClassArchive | None = None,
) -> SparkSession:
    """Start (or join) the process's SparkSession with executors on this interpreter; its JVM maps or
    writes `class_archive` when given."""
    load_numpy_converters_lazily()
    os.environ["PYSPARK_PYTHON"] = executor_python(conf)
    name_planner_socket()
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    options = {
        "spark.master": master or default_master(),
        "spark.app.name": app_name,
        "spark.pyspark.python": os.environ["PYSPARK_PYTHON"],
        "spark.ui.enabled": "false",
        "spark.driver.host": os.environ["SPARK_LOCAL_IP"],
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.python.worker.reuse": "true",
        "spark.python.daemon.module": EXECUTOR_DAEMON_MODULE,
    }
    given = dict(conf or {})
    if class_archive is not None and SparkContext._active_spark_context is not None:
        class_archive.release()  # the process's JVM runs already, with the options it started with
    archive_options = class_archive.java_options() if class_archive is not None else ""
    java_options = {
        DRIVER_DEFAULT_JAVA_OPTIONS: f"{driver_default_java_options(given)} {archive_options}".strip(),
        DRIVER_JAVA_OPTIONS: driver_java_options(given),
    }
    options.update({**SPARK_DEFAULTS, **given, **java_options})
    builder = SparkSession.builder
    for key, value in options.items():
        builder = builder.config(key, value)
    try:
        launch_jvm(options)
        return builder.getOrCreate()
    except BaseException:
        if class_archive is not None:
            class_archive.release()
        raise


def start_executor_daemons(spark: SparkSession) -> None:
    """Run one Python task that does nothing, so that the executors' Python daemon (and the imports it
    makes once for every worker it forks) is up before the first task host needs it."""
    try:
        spark.sparkContext.parallelize([0], 1).map(bool).collect()
    except Exception as error:  # the first task host starts the daemon itself then
        logger.warning("Could not start the executors' Python daemon ahead of the first task: %s", error)
