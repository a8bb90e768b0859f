"""Where executors reach their worker's control channel: a fixed port and the driver's host name, so
that a cluster's network can let executors through to it."""

from __future__ import annotations

import socket
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.task_jobs import TaskJobRunner


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_control_channel_listens_on_its_port_and_is_dialled_at_the_advertised_host(
    spark: SparkSession,
) -> None:
    port = _free_port()
    runner = TaskJobRunner(
        spark, control_host="0.0.0.0", control_port=port, advertised_control_host="127.0.0.1", slots=1
    )
    try:
        assert runner.control_address == ("127.0.0.1", port)
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass
    finally:
        runner.close()


def test_the_control_channel_follows_the_spark_drivers_host_and_bind_address(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path),
            "spark.driver.host": "conveyor-driver.conveyor.svc",
            "spark.driver.bindAddress": "0.0.0.0",
            "task.control.port": "7079",
        }
    )
    assert (config.control_channel_host, config.control_channel_bind_host, config.task_control_port) == (
        "conveyor-driver.conveyor.svc",
        "0.0.0.0",
        7079,
    )
