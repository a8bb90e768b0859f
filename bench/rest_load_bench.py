"""REST latency while many connectors are deleted at once, beside the same requests on an idle worker.

A standalone worker (embedded log, Spark executor, REST server on a free local port) holds `--connectors`
connectors whose `stop()` takes `--stop-ms` (`plugins/slow_stop.py`, loaded as a plugin.path directory),
as a connector whose tasks are slow to stop does. The bench times `GET /` and `GET /connectors`:
- idle: one after the other on the idle worker holding every connector (the same-run baseline);
- under load: the same requests, one after the other, while every connector is deleted concurrently,
  each delete its own request;
and prints p50/p99 of each beside the total time of the deletes.

Run: .venv/bin/python bench/rest_load_bench.py [--connectors 200] [--stop-ms 600] [--samples 200]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import open_log
from conveyor.plugins import load_plugin_path
from conveyor.rest import RestServer, create_app
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_runner import SparkTaskRunner

SLOW_STOP_CONNECTOR = "SlowStopConnector"
STOP_MS_CONFIG = "stop.ms"
PLUGINS = Path(__file__).resolve().parent / "plugins"
READS = ("/", "/connectors")
GET_TIMEOUT_S = 120.0


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def timed_get(client: httpx.Client, path: str) -> float:
    started = time.perf_counter()
    response = client.get(path)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} answered {response.status_code}: {response.text}")
    return elapsed


def sample_reads(
    client: httpx.Client, samples: int, until: threading.Event | None = None
) -> dict[str, list[float]]:
    """Alternate the reads `samples` times each, or, with `until`, until it is set."""
    latencies: dict[str, list[float]] = {path: [] for path in READS}
    done = 0
    while (until is None and done < samples) or (until is not None and not until.is_set()):
        for path in READS:
            latencies[path].append(timed_get(client, path))
        done += 1
    return latencies


def delete_all(client: httpx.Client, names: list[str]) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(len(names)) as pool:
        statuses = list(pool.map(lambda name: client.delete(f"/connectors/{name}").status_code, names))
    elapsed = time.perf_counter() - started
    failed = [status for status in statuses if status != 204]
    if failed:
        raise RuntimeError(f"{len(failed)} deletes failed: {sorted(set(failed))}")
    return elapsed


def report(label: str, latencies: dict[str, list[float]]) -> None:
    for path, values in latencies.items():
        print(
            f"{label:<28} GET {path:<12} n={len(values):<5} p50={percentile(values, 0.5) * 1000:8.1f} ms"
            f"  p99={percentile(values, 0.99) * 1000:8.1f} ms  mean={statistics.fmean(values) * 1000:8.1f} ms"
        )


def run(connectors: int, stop_ms: int, samples: int, data_dir: Path) -> None:
    load_plugin_path([PLUGINS])
    config = WorkerConfig.from_props({"data.dir": str(data_dir)})
    log = open_log(config.log_url)
    spark = get_or_create_session(config.spark_master, "conveyor-rest-load-bench", config.spark_conf())
    runner = SparkTaskRunner(spark, lease_s=config.task_lease_ms / 1000, tasks_per_slot=config.tasks_per_slot)
    herder = StandaloneHerder(config, log, runner, config.advertised_worker_id(0))
    herder.start()
    limits = httpx.Limits(max_connections=connectors + 10, max_keepalive_connections=connectors + 10)
    try:
        with (
            RestServer(create_app(herder), listeners="http://127.0.0.1:0") as server,
            httpx.Client(base_url=server.url, timeout=GET_TIMEOUT_S, limits=limits) as client,
        ):
            names = [f"slow-{index:04d}" for index in range(connectors)]
            for name in names:
                body = {"connector.class": SLOW_STOP_CONNECTOR, STOP_MS_CONFIG: str(stop_ms)}
                response = client.put(f"/connectors/{name}/config", json=body)
                if response.status_code != 201:
                    raise RuntimeError(f"creating {name}: {response.status_code} {response.text}")
            idle = sample_reads(client, samples)
            deletes_done = threading.Event()
            loaded: dict[str, list[float]] = {}

            def sample_until_done() -> None:
                loaded.update(sample_reads(client, samples, until=deletes_done))

            sampler = threading.Thread(target=sample_until_done)
            sampler.start()
            try:
                delete_seconds = delete_all(client, names)
            finally:
                deletes_done.set()
                sampler.join()
        print(f"{connectors} connectors, each stop() taking {stop_ms} ms")
        report("idle worker (baseline)", idle)
        report(f"during {connectors} deletes", loaded)
        serial = connectors * stop_ms / 1000
        print(f"{connectors} concurrent deletes took {delete_seconds:.2f} s (serially: >= {serial:.0f} s)")
    finally:
        herder.stop()
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connectors", type=int, default=200)
    parser.add_argument("--stop-ms", type=int, default=600)
    parser.add_argument("--samples", type=int, default=200)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="conveyor-rest-bench-") as data_dir:
        run(arguments.connectors, arguments.stop_ms, arguments.samples, Path(data_dir))


if __name__ == "__main__":
    main()
