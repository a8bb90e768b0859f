"""REST under many config changes at once: on a standalone worker, and on a group of three workers.

Standalone (the default, `--mode standalone`): REST latency while many connectors are deleted at once,
beside the same requests on an idle worker. A standalone worker (embedded log, Spark executor, REST
server on a free local port) holds `--connectors`
connectors whose `stop()` takes `--stop-ms` (`plugins/slow_stop.py`, loaded as a plugin.path directory),
as a connector whose tasks are slow to stop does. The bench times `GET /` and `GET /connectors`:
- idle: one after the other on the idle worker holding every connector (the same-run baseline);
- under load: the same requests, one after the other, while every connector is deleted concurrently,
  each delete its own request;
and prints p50/p99 of each beside the total time of the deletes.

Group (`--mode group`): three `conveyor distributed` worker processes on one Kafka broker (started from
the cached Kafka jars, as the tests do), `sessioned` protocol. `--connectors` generator connectors
(`GeneratorSourceConnector`, tasks.max=1, 0.2 records/s each, all into one topic, so that the work
itself stays light) are created at once, each its own `PUT /connectors/{name}/config` sent to the
workers in turn (followers forward to the leader), then deleted at once the same way. A request
answered 409 or 503 (the group settling) or 500 is sent again after a short pause, as a client does.
Printed: the seconds until every connector and its task run, the answers by status code, the seconds
until every delete is done and no worker lists a connector, and the answers of `GET /connectors`
sampled during the deletes. `--runner threads` (the default) runs each worker's tasks in threads of its
process (`bench/rebalance_worker.py`, the product's `DistributedWorker` otherwise); `--runner spark` runs
`conveyor distributed` itself.

Run: .venv/bin/python bench/rest_load_bench.py [--connectors 200] [--stop-ms 600] [--samples 200]
     .venv/bin/python bench/rest_load_bench.py --mode group [--connectors 300] [--runner threads|spark]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from conveyor.herder.standalone import StandaloneHerder
from conveyor.kafka_broker import KafkaBroker
from conveyor.log import open_log
from conveyor.plugins import load_plugin_path
from conveyor.rest import RestServer, create_app
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_runner import SparkTaskRunner
from conveyor.storage import StatusStore
from rebalance_bench import COMMANDS, WorkerProcess, free_port, wait_for

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


GROUP_WORKERS = 3
GROUP_RATE = 0.2
GROUP_TOPIC = "rest-load-generated"
SETTLE_LIMIT_S = 300.0
"""A phase that has not settled after this long is reported as never settled."""
RETRIED = (409, 500, 503)
RETRY_PAUSE_S = 0.5


def group_properties(root: Path, name: str, port: int, bootstrap: str) -> Path:
    path = root / f"{name}.properties"
    lines = [
        "group.id=rest-load",
        f"bootstrap.servers={bootstrap}",
        "config.storage.replication.factor=1",
        "offset.storage.replication.factor=1",
        "status.storage.replication.factor=1",
        f"listeners=http://127.0.0.1:{port}",
        "rest.advertised.host.name=127.0.0.1",
        "offset.flush.interval.ms=5000",
        "",
    ]
    path.write_text("\n".join(lines))
    return path


class Answers:
    """The status codes of the answers a phase got, counted from many threads."""

    def __init__(self) -> None:
        self.codes: Counter[int] = Counter()
        self._lock = threading.Lock()

    def add(self, code: int) -> None:
        with self._lock:
            self.codes[code] += 1

    def line(self) -> str:
        return ", ".join(f"{code}: {count}" for code, count in sorted(self.codes.items())) or "none"


def send_until_done(
    client: httpx.Client, method: str, path: str, answers: Answers, deadline: float, body: object = None
) -> int:
    """Send the request until it is answered other than 409, 500 or 503, or the deadline passes."""
    while True:
        try:
            code = client.request(method, path, json=body).status_code
        except httpx.HTTPError:
            code = 599
        answers.add(code)
        if code not in (*RETRIED, 599) or time.monotonic() > deadline:
            return code
        time.sleep(RETRY_PAUSE_S)


def send_all(
    clients: list[httpx.Client],
    method: str,
    paths: list[str],
    answers: Answers,
    began: float,
    body: object = None,
) -> None:
    """Each request at once, spread over the workers' clients, each sent until done (`send_until_done`)."""
    deadline = began + SETTLE_LIMIT_S
    with ThreadPoolExecutor(len(paths)) as pool:
        list(
            pool.map(
                lambda i: send_until_done(
                    clients[i % len(clients)], method, paths[i], answers, deadline, body
                ),
                range(len(paths)),
            )
        )


def all_running(statuses: StatusStore, names: list[str]) -> bool:
    """Every connector of `names` and its one task last written RUNNING in the status topic (read directly:
    a listing with `?expand=status` asks every worker for its tasks' metrics, connector by connector)."""
    statuses.read_to_end()
    for name in names:
        connector, task = statuses.connector(name), statuses.task(name, 0)
        if connector is None or task is None or (connector.state, task.state) != ("RUNNING", "RUNNING"):
            return False
    return True


def none_listed(clients: list[httpx.Client]) -> bool:
    try:
        answers = [client.get("/connectors") for client in clients]
    except httpx.HTTPError:
        return False
    return all(answer.status_code == 200 and answer.json() == [] for answer in answers)


def settle(condition: Callable[[], bool], began: float) -> float | None:
    """Seconds from `began` until `condition` holds, or None if it does not within `SETTLE_LIMIT_S`."""
    try:
        wait_for(condition, "the group to settle", SETTLE_LIMIT_S - (time.monotonic() - began))
    except TimeoutError:
        return None
    return time.monotonic() - began


def seconds_cell(seconds: float | None) -> str:
    return f"never within {SETTLE_LIMIT_S:.0f} s" if seconds is None else f"{seconds:.1f} s"


def run_group(connectors: int, runner: str, root: Path) -> None:
    with KafkaBroker(root / "broker", heap="1g") as broker:
        workers = [
            WorkerProcess(
                name, group_properties(root, name, port, broker.bootstrap_servers), port, COMMANDS[runner]
            )
            for name, port in ((name, free_port()) for name in "ABC"[:GROUP_WORKERS])
        ]
        limits = httpx.Limits(max_connections=connectors + 10, max_keepalive_connections=connectors + 10)
        clients = [httpx.Client(base_url=w.url, timeout=GET_TIMEOUT_S, limits=limits) for w in workers]
        log = open_log(f"kafka://{broker.bootstrap_servers}")
        try:
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.wait_up()
            wait_for(lambda: none_listed(clients), "every worker to serve GET /connectors")
            names = [f"gen-{index:04d}" for index in range(connectors)]
            config = {
                "connector.class": "GeneratorSourceConnector",
                "topic": GROUP_TOPIC,
                "tasks.max": "1",
                "rate": str(GROUP_RATE),
            }
            statuses = StatusStore(log, create_missing=False)
            statuses.start()
            creates = Answers()
            began = time.monotonic()
            send_all(clients, "PUT", [f"/connectors/{n}/config" for n in names], creates, began, config)
            answered_s = time.monotonic() - began
            created_s = settle(lambda: all_running(statuses, names), began)
            statuses.stop()

            deletes = Answers()
            listing = Answers()
            deleted = threading.Event()

            def sample_listing() -> None:
                while not deleted.is_set():
                    for client in clients:
                        try:
                            listing.add(client.get("/connectors").status_code)
                        except httpx.HTTPError:
                            listing.add(599)
                    time.sleep(0.1)

            sampler = threading.Thread(target=sample_listing)
            sampler.start()
            began = time.monotonic()
            try:
                send_all(clients, "DELETE", [f"/connectors/{n}" for n in names], deletes, began)
                deletes_answered_s = time.monotonic() - began
                deleted_s = settle(lambda: none_listed(clients), began)
            finally:
                deleted.set()
                sampler.join()
        finally:
            for client in clients:
                client.close()
            log.close()
            with ThreadPoolExecutor(len(workers)) as pool:
                list(pool.map(WorkerProcess.stop, workers))
    print(
        f"{connectors} generator connectors (tasks.max=1) on {GROUP_WORKERS} workers, Kafka, tasks: {runner}"
    )
    print(
        f"creates: every request answered after {answered_s:.1f} s; every connector and task RUNNING after "
        f"{seconds_cell(created_s)}"
    )
    print(f"creates: answers {creates.line()}")
    print(
        f"deletes: every request answered after {deletes_answered_s:.1f} s; no worker lists a connector "
        f"after {seconds_cell(deleted_s)}"
    )
    print(f"deletes: answers {deletes.line()}")
    print(f"GET /connectors during the deletes: {listing.line()}")
    print(f"worker logs in {root}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=("standalone", "group"), default="standalone")
    parser.add_argument(
        "--runner", choices=sorted(COMMANDS), default="threads", help="group mode's task runner"
    )
    parser.add_argument("--connectors", type=int, default=None, help="200 standalone, 300 in a group")
    parser.add_argument("--stop-ms", type=int, default=600)
    parser.add_argument("--samples", type=int, default=200)
    arguments = parser.parse_args()
    if arguments.mode == "group":
        run_group(
            arguments.connectors or 300,
            arguments.runner,
            Path(tempfile.mkdtemp(prefix="conveyor-rest-group-")),
        )
        return
    with tempfile.TemporaryDirectory(prefix="conveyor-rest-bench-") as data_dir:
        run(arguments.connectors or 200, arguments.stop_ms, arguments.samples, Path(data_dir))


if __name__ == "__main__":
    main()
