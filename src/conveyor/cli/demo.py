"""`conveyor demo`: a generator source and a file sink through the REST API, verified exactly once."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.connectors import verify
from conveyor.settings.worker_config import WorkerConfig

TOPIC = "demo-events"
TIMEOUT_S = 600


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


def run_demo(records: int, tasks: int, data_dir: Path | None) -> int:
    """Run the demo; returns the process exit code (0 when the sink holds every record exactly once)."""
    console = Console(stderr=True)
    directory = data_dir or Path(tempfile.mkdtemp(prefix="conveyor-demo-"))
    sink_file = directory / "sink.txt"
    sink_file.unlink(missing_ok=True)
    config = WorkerConfig.from_props(
        {
            "data.dir": str(directory),
            "listeners": "http://127.0.0.1:0",
            "exactly.once.source.support": "enabled",
            "offset.flush.interval.ms": "1000",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        }
    )
    console.print(f"[bold]Conveyor demo[/]: {tasks} generator task(s) x {records:,} records -> {sink_file}")
    console.print("Starting a standalone worker (embedded log, local Spark)...")
    with StandaloneWorker(config) as worker, httpx.Client(base_url=worker.url, timeout=60) as rest:
        console.print(f"REST API at {worker.url}")
        source = {
            "name": "demo-generator",
            "config": {
                "connector.class": "GeneratorSourceConnector",
                "tasks.max": str(tasks),
                "topic": TOPIC,
                "records": str(records),
                "record.size": "100",
                "exactly.once.support": "required",
            },
        }
        sink = {
            "name": "demo-file-sink",
            "config": {
                "connector.class": "FileStreamSink",
                "tasks.max": "1",
                "topics": TOPIC,
                "file": str(sink_file),
            },
        }
        for body in (source, sink):
            response = rest.post("/connectors", json=body)
            if response.status_code != 201:
                console.print(f"[red]Creating {body['name']} failed: {response.status_code} {response.text}")
                return 1
            console.print(f"Created connector [cyan]{body['name']}[/] through POST /connectors")
        expected = records * tasks
        started = time.monotonic()
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            bar = progress.add_task("records in the sink file", total=expected)
            while time.monotonic() - started < TIMEOUT_S:
                written = _count_lines(sink_file)
                progress.update(bar, completed=min(written, expected))
                if written >= expected:
                    break
                failed = _failed_tasks(rest)
                if failed:
                    console.print(f"[red]Failed: {failed}")
                    return 1
                time.sleep(0.5)
        elapsed = time.monotonic() - started
        for name in ("demo-generator", "demo-file-sink"):
            rest.put(f"/connectors/{name}/stop")
    result = verify(sink_file.read_bytes().splitlines(), expected_per_task=records, expected_tasks=tasks)
    console.print(
        f"Read back {result.distinct:,} distinct records in {elapsed:.1f} s "
        f"({expected / max(elapsed, 1e-9):,.0f} records/s end to end): "
        f"{result.duplicates} duplicates, {result.gaps} gaps, {result.unreadable} unreadable."
    )
    if result.exactly_once:
        console.print("[bold green]Every generated record is in the sink file exactly once.")
        return 0
    console.print("[bold red]The sink file does not hold every record exactly once.")
    return 1


def _failed_tasks(rest: httpx.Client) -> list[str]:
    failed = []
    for name in rest.get("/connectors").json():
        status = rest.get(f"/connectors/{name}/status").json()
        for task in status.get("tasks", []):
            if task["state"] == "FAILED" and "trace" in task:
                failed.append(f"{name}-{task['id']}: {task['trace'].strip().splitlines()[-1]}")
    return failed
