"""Start-up and footprint: Conveyor standalone and distributed beside Apache Kafka Connect 4.3.1, in one run.

Run: ``.venv/bin/python bench/footprint_bench.py [--connectors N] [--tasks N] [--rate-seconds S]``.
Each runtime runs as users run it (``conveyor standalone`` on its embedded log, ``conveyor distributed``
and Kafka's ``ConnectDistributed`` on one broker, both with exactly-once source support enabled). For
each, from the moment its process is started: seconds to a healthy ``GET /health``, and to the first
record of a FileStreamSource connector created as soon as it is healthy. Then, the PSS of the whole
process tree idle (``/proc/<pid>/smaps_rollup`` of the process and its descendants: shared pages count
once), the same after N more one-task source connectors and after one sink connector with N tasks
(``--connectors 10 --tasks 100``; 0 skips them, the default), and the CPU seconds per record while
lines are appended to the source file at 100 per second for S seconds (20). Beside the seconds to
healthy, the CPU seconds the process tree used by then (less swayed by a busy machine). ``--census``
prints each process of the tree with what it holds. ``--only`` may add distributed workers with
settings of their own: ``distributed-spark-jvm`` (Spark's own JVM defaults,
``spark.driver.defaultJavaOptions=``), ``distributed-spread`` (``task.placement=spread``: a process
per task while slots are free), ``distributed-pack`` (``task.placement=pack``) and
``distributed-no-archive`` (``jvm.class.archive.enable=false``: no archive of Spark's classes);
``--set KEY=VALUE`` adds a setting to every distributed Conveyor worker. A broker is started with
``conveyor.kafka_broker`` unless ``CONVEYOR_KAFKA_BOOTSTRAP`` names one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from connect_vs_kafka_connect import create, worker_settings
from conveyor.kafka_broker import KafkaConnect
from conveyor.kafka_broker.jvm import free_port
from conveyor.log import TopicPartition, open_log
from conveyor.metrics.worker_usage import cpu_seconds, memory_bytes, process_tree
from kafka_bench import broker

CONVEYOR = Path(sys.executable).parent / "conveyor"
DEADLINE_S = 600.0
RATE = 100
SETTLE_S = 5.0
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
DAEMON_MODULE = "conveyor.spark.executor_daemon"
CONVEYOR_VARIANTS: dict[str, tuple[str, dict[str, str]]] = {
    "distributed": ("Conveyor distributed", {}),
    "distributed-spark-jvm": ("Conveyor, Spark's JVM", {"spark.driver.defaultJavaOptions": ""}),
    "distributed-spread": ("Conveyor, spread", {"task.placement": "spread"}),
    "distributed-pack": ("Conveyor, pack", {"task.placement": "pack"}),
    "distributed-no-archive": ("Conveyor, no class archive", {"jvm.class.archive.enable": "false"}),
}
"""`conveyor distributed` workers by their `--only` name: label and the settings added to the group's."""


def pss_mb(root: int) -> float:
    return sum(memory_bytes(pid) for pid in process_tree(root)) / 2**20


def cpu_s(root: int) -> float:
    return sum(cpu_seconds(pid) for pid in process_tree(root))


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
    except OSError:
        return "?"
    return " ".join(a.decode(errors="replace") for a in argv if a)[:110]


def parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def role(pid: int) -> str:
    """What a process of the executors' daemon is: the daemon, or a task host it forked (both have the
    daemon's command line)."""
    if DAEMON_MODULE not in command_line(pid):
        return ""
    return "task host  " if DAEMON_MODULE in command_line(parent(pid)) else "daemon  "


def rollup(pid: int) -> dict[str, int]:
    """The kB fields of the process's `smaps_rollup` (empty once it is gone)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    except OSError:
        return {}
    return {line.split()[0].rstrip(":"): int(line.split()[1]) for line in lines if len(line.split()) > 1}


def threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def thread_names(pid: int) -> str:
    """The process's threads counted by name, most first (librdkafka's, Python's, the JVM's)."""
    counts: dict[str, int] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return ""
    for tid in tids:
        try:
            name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
        except OSError:
            continue
        counts[name] = counts.get(name, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    return ", ".join(f"{name} x{count}" for name, count in ranked[:8])


def census(root: int) -> str:
    """Each process of the tree: PSS, private and anonymous memory, threads (the most common by name),
    role and command line."""
    rows = []
    for pid in process_tree(root):
        fields = rollup(pid)
        private = (fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)) / 1024
        anonymous = fields.get("Anonymous", 0) / 1024
        rows.append(
            f"      {pid:>8} {memory_bytes(pid) / 2**20:7.1f} MB pss {private:7.1f} priv {anonymous:7.1f} "
            f"anon {threads(pid):4} thr  {role(pid)}{command_line(pid)}\n{'':16}threads: {thread_names(pid)}"
        )
    return "\n".join(rows)


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def tasks_running(url: str, name: str, tasks: int) -> bool:
    response = httpx.get(f"{url}/connectors/{name}/status", timeout=30)
    if response.status_code != 200:
        return False
    states = [task["state"] for task in response.json().get("tasks", [])]
    return len(states) == tasks and all(state == "RUNNING" for state in states)


@dataclass
class Runtime:
    """One runtime under test: how to start it, where it is, and where its records go."""

    label: str
    log_url: str
    directory: Path
    start: Callable[[], tuple[str, int, Callable[[], None]]]


@dataclass
class Figures:
    label: str
    health_s: float = 0.0
    health_cpu_s: float = 0.0
    first_record_s: float = 0.0
    idle_mb: float = 0.0
    idle_processes: int = 0
    connectors_mb: float = 0.0
    tasks_mb: float = 0.0
    cpu_ms_per_record: float = 0.0
    cpu_share: float = 0.0


class TopicCounter:
    """Counts the records of a one-partition topic as they arrive."""

    def __init__(self, log_url: str, topic: str) -> None:
        self._log = open_log(log_url)
        self._consumer = self._log.consumer(auto_offset_reset="earliest")
        self._consumer.assign([TopicPartition(topic, 0)])
        self.count = 0

    def poll(self) -> int:
        for batch in self._consumer.poll_batch(timeout=0.2):
            self.count += len(batch.values)
        return self.count

    def close(self) -> None:
        self._consumer.close()
        self._log.close()


def topic(runtime: Runtime, name: str) -> str:
    """Create a one-partition topic on the runtime's log (once it runs: its log may not exist before)."""
    log = open_log(runtime.log_url)
    try:
        log.admin().create_topic(name, 1)
    finally:
        log.close()
    return name


def measure(runtime: Runtime, connectors: int, tasks: int, rate_seconds: float, show_census: bool) -> Figures:
    figures = Figures(runtime.label)
    source = runtime.directory / "lines.txt"
    source.write_text("line-0\n")
    started = time.monotonic()
    url, pid, stop = runtime.start()
    try:
        wait_for(lambda: healthy(url), f"{runtime.label} to be healthy")
        figures.health_s = time.monotonic() - started
        figures.health_cpu_s = cpu_s(pid)
        lines_topic = topic(runtime, f"fp-{uuid.uuid4().hex[:6]}")
        create(
            runtime.label,
            url,
            {
                "name": "lines",
                "config": {"connector.class": FILE_SOURCE, "file": str(source), "topic": lines_topic},
            },
        )
        counter = TopicCounter(runtime.log_url, lines_topic)
        wait_for(lambda: counter.poll() >= 1, f"{runtime.label}'s first record")
        figures.first_record_s = time.monotonic() - started
        time.sleep(SETTLE_S)
        figures.idle_mb = pss_mb(pid)
        figures.idle_processes = len(process_tree(pid))
        if show_census:
            print(f"    {runtime.label}, one connector idle:\n{census(pid)}", flush=True)
        figures.cpu_ms_per_record, figures.cpu_share = rate(source, counter, pid, rate_seconds)
        counter.close()
        if connectors:
            figures.connectors_mb = many_connectors(runtime, url, pid, connectors)
            if show_census:
                print(f"    {runtime.label}, {connectors + 1} connectors:\n{census(pid)}", flush=True)
        if tasks:
            sink_topic = topic(runtime, f"fp-sink-{uuid.uuid4().hex[:6]}")
            config = {
                "connector.class": FILE_SINK,
                "file": str(runtime.directory / "sink.txt"),
                "topics": sink_topic,
                "tasks.max": str(tasks),
            }
            create(runtime.label, url, {"name": "many-tasks", "config": config})
            wait_for(lambda: tasks_running(url, "many-tasks", tasks), f"{tasks} sink tasks running")
            time.sleep(SETTLE_S)
            figures.tasks_mb = pss_mb(pid)
            if show_census:
                print(f"    {runtime.label}, {tasks} more tasks:\n{census(pid)}", flush=True)
    finally:
        stop()
    return figures


def rate(source: Path, counter: TopicCounter, pid: int, seconds: float) -> tuple[float, float]:
    """Append RATE lines a second to `source` for `seconds`; CPU ms per record and share of a core."""
    records = int(RATE * seconds)
    expected = counter.count + records
    cpu_started, started = cpu_s(pid), time.monotonic()
    with open(source, "a") as lines:
        for n in range(records):
            lines.write(f"line-{n + 1}\n")
            if n % 10 == 9:
                lines.flush()
                time.sleep(max(0.0, started + (n + 1) / RATE - time.monotonic()))
    wait_for(lambda: counter.poll() >= expected, "the appended lines in the topic")
    cpu = cpu_s(pid) - cpu_started
    return cpu * 1e3 / records, cpu / (time.monotonic() - started)


def many_connectors(runtime: Runtime, url: str, pid: int, count: int) -> float:
    many_topic = topic(runtime, f"fp-many-{uuid.uuid4().hex[:6]}")
    for n in range(count):
        path = runtime.directory / f"many-{n}.txt"
        path.write_text(f"many-{n}\n")
        config = {"connector.class": FILE_SOURCE, "file": str(path), "topic": many_topic}
        create(runtime.label, url, {"name": f"many-{n}", "config": config})
    counter = TopicCounter(runtime.log_url, many_topic)
    wait_for(lambda: counter.poll() >= count, f"a record from each of {count} connectors")
    counter.close()
    time.sleep(SETTLE_S)
    return pss_mb(pid)


def conveyor_start(
    command: str, directory: Path, settings: dict[str, str]
) -> Callable[[], tuple[str, int, Callable[[], None]]]:
    def start() -> tuple[str, int, Callable[[], None]]:
        port = free_port()
        properties = directory / "worker.properties"
        all_settings = {
            **settings,
            "listeners": f"http://127.0.0.1:{port}",
            "data.dir": str(directory / "data"),
        }
        properties.write_text("".join(f"{key}={value}\n" for key, value in all_settings.items()))
        extra = ["--no-status"] if command == "standalone" else []
        output = open(directory / "worker.out", "wb")  # noqa: SIM115 - closed by stop
        process = subprocess.Popen(
            [str(CONVEYOR), command, str(properties), *extra], stdout=output, stderr=subprocess.STDOUT
        )

        def stop() -> None:
            process.terminate()
            try:
                process.wait(120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            output.close()

        return f"http://127.0.0.1:{port}", process.pid, stop

    return start


def kafka_connect_start(
    directory: Path, settings: dict[str, str]
) -> Callable[[], tuple[str, int, Callable[[], None]]]:
    def start() -> tuple[str, int, Callable[[], None]]:
        connect = KafkaConnect(directory, settings, heap="1g")
        connect.start()  # returns once healthy: the bench's own check then answers at once
        assert connect.pid is not None
        return connect.url, connect.pid, connect.stop

    return start


def runtimes(bootstrap: str, root: Path, only: list[str], extra: dict[str, str]) -> Iterator[Runtime]:
    string = "org.apache.kafka.connect.storage.StringConverter"
    if "standalone" in only:
        directory = root / "standalone"
        directory.mkdir()
        settings = {"key.converter": string, "value.converter": string, "offset.flush.interval.ms": "1000"}
        yield Runtime(
            "Conveyor standalone",
            f"embedded:{directory / 'data' / 'log'}",
            directory,
            conveyor_start("standalone", directory, settings),
        )
    for name, (label, own) in CONVEYOR_VARIANTS.items():
        if name not in only:
            continue
        directory = root / name
        directory.mkdir()
        settings = {**worker_settings(bootstrap, f"fp-{name}-{uuid.uuid4().hex[:6]}"), **own, **extra}
        yield Runtime(
            label, f"kafka://{bootstrap}", directory, conveyor_start("distributed", directory, settings)
        )
    if "kafka-connect" in only:
        directory = root / "kafka-connect"
        directory.mkdir()
        settings = worker_settings(bootstrap, f"fp-kc-{uuid.uuid4().hex[:6]}")
        yield Runtime(
            "Kafka Connect 4.3.1",
            f"kafka://{bootstrap}",
            directory,
            kafka_connect_start(directory, settings),
        )


def report(all_figures: list[Figures], connectors: int, tasks: int) -> None:
    print(
        f"{'':22}{'health s':>9}{'CPU s':>6}{'1st rec s':>10}{'idle MB':>9}{'procs':>6}"
        f"{f'+{connectors} conn MB':>14}{f'+{tasks} tasks MB':>15}{'CPU ms/rec':>11}{'core %':>7}"
    )
    for f in all_figures:
        print(
            f"{f.label:22}{f.health_s:9.1f}{f.health_cpu_s:6.1f}{f.first_record_s:10.1f}{f.idle_mb:9.0f}{f.idle_processes:6}"
            f"{f.connectors_mb:14.0f}{f.tasks_mb:15.0f}{f.cpu_ms_per_record:11.2f}{f.cpu_share:7.1%}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--connectors", type=int, default=0)
    parser.add_argument("--tasks", type=int, default=0)
    parser.add_argument("--rate-seconds", type=float, default=20.0)
    parser.add_argument("--census", action="store_true")
    parser.add_argument("--only", default="standalone,distributed,kafka-connect")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    arguments = parser.parse_args()
    extra = dict(setting.split("=", 1) for setting in arguments.set)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)
    with broker() as bootstrap, tempfile.TemporaryDirectory(prefix="footprint-bench-") as tmp:
        results = []
        for runtime in runtimes(bootstrap, Path(tmp), arguments.only.split(","), extra):
            results.append(
                measure(
                    runtime, arguments.connectors, arguments.tasks, arguments.rate_seconds, arguments.census
                )
            )
            report(results[-1:], arguments.connectors, arguments.tasks)
    report(results, arguments.connectors, arguments.tasks)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)


if __name__ == "__main__":
    main()
