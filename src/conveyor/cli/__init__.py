"""The `conveyor` command: standalone and distributed workers, MirrorMaker 2's dedicated mode, the demo,
and version information."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.live import Live
from rich.table import Table

from conveyor import __version__
from conveyor.api import ConfigError
from conveyor.cli.apply_command import apply
from conveyor.cli.connector_files import read_connector_file
from conveyor.cli.exit_codes import ExitCode
from conveyor.cli.logging_setup import configure_logging
from conveyor.cli.offsets_commands import offsets
from conveyor.cli.operator_commands import add_operator_commands
from conveyor.cli.status_view import status_table
from conveyor.errors import NotFoundError
from conveyor.herder.api import Herder

if TYPE_CHECKING:
    from conveyor.cli.worker_process import WorkerProcess


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="conveyor")
def main() -> None:
    """Conveyor: the Kafka Connect runtime, rebuilt in Python, with its tasks running on Apache Spark."""


@main.command()
@click.argument("worker_properties", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("connector_configs", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--status/--no-status", default=True, help="Show a live status table in the terminal.")
@click.option("--log-level", default="INFO", show_default=True, help="Root log level.")
def standalone(
    worker_properties: Path, connector_configs: tuple[Path, ...], status: bool, log_level: str
) -> None:
    """Run a standalone worker, as Kafka's connect-standalone.sh does.

    WORKER_PROPERTIES takes Kafka Connect's worker property names (listeners, key.converter,
    offset.flush.interval.ms, exactly.once.source.support, ...) plus log.url (default: an embedded
    log under data.dir) and spark.master. Each CONNECTOR_CONFIG is a .properties or .json file; the
    connectors are created (or updated) once the worker has started. The REST API stays up until
    Ctrl-C.
    """
    from conveyor.cli.worker_process import StandaloneWorker, load_worker_config

    configure_logging(log_level)
    try:
        config = load_worker_config(worker_properties)
    except ConfigError as error:
        raise click.ClickException(f"{worker_properties}: {error}") from error
    connectors = [read_connector_file(path) for path in connector_configs]
    worker = StandaloneWorker(config)
    herder = worker.start()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    try:
        for name, connector_config in connectors:
            created, _ = herder.put_connector_config(name, connector_config, allow_replace=True)
            click.echo(f"{'Created' if created else 'Updated'} connector {name}", err=True)
        click.echo(f"REST API at {worker.url}", err=True)
        if status:
            table = _herder_status_table(herder)
            with Live(table, console=Console(stderr=True), refresh_per_second=2) as live:
                while not stopping.wait(0.5):
                    live.update(_herder_status_table(herder))
        else:
            while not stopping.wait(1.0):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        _shut_down(worker)


def _shut_down(worker: WorkerProcess, failed: bool = False) -> None:
    """Stop the worker within its bound and exit: non-zero if its herder failed or something had to be
    abandoned (then at once, since an abandoned call may hold a thread the interpreter would wait for)."""
    if not worker.shut_down():
        logging.shutdown()
        os._exit(ExitCode.ERROR)
    if failed:
        raise SystemExit(ExitCode.ERROR)


def _herder_status_table(herder: Herder) -> Table:
    statuses = []
    for name in herder.connectors():
        try:
            statuses.append(herder.connector_status(name).to_json())
        except NotFoundError:
            continue
    return status_table(statuses)


@main.command()
@click.argument("worker_properties", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--log-level", default="INFO", show_default=True, help="Root log level.")
def distributed(worker_properties: Path, log_level: str) -> None:
    """Run a worker of a group, as Kafka's connect-distributed.sh does.

    WORKER_PROPERTIES takes Kafka Connect's distributed worker properties (group.id, the three
    *.storage.topic keys, connect.protocol, session.timeout.ms, exactly.once.source.support, ...);
    Kafka's own connect-distributed.properties runs unchanged. Workers with the same group.id and log
    share their connectors and tasks; connectors are created through the REST API of any of them.
    Runs until SIGTERM or Ctrl-C.
    """
    from conveyor.cli.worker_process import DistributedWorker, load_worker_config

    configure_logging(log_level)
    try:
        config = load_worker_config(worker_properties, standalone=False)
    except ConfigError as error:
        raise click.ClickException(f"{worker_properties}: {error}") from error
    worker = DistributedWorker(config)
    herder = worker.start()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    click.echo(f"REST API at {worker.url}", err=True)
    try:
        while not stopping.is_set() and not herder.wait_failed(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        _shut_down(worker, failed=herder.failure is not None)


@main.command()
@click.argument("mm2_properties", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--clusters",
    "targets",
    multiple=True,
    help="Drive only the flows into these target clusters (repeatable), as connect-mirror-maker.sh.",
)
@click.option("--log-level", default="INFO", show_default=True, help="Root log level.")
def mirror(mm2_properties: Path, targets: tuple[str, ...], log_level: str) -> None:
    """Run MirrorMaker 2 in dedicated mode, as Kafka's connect-mirror-maker.sh does.

    MM2_PROPERTIES takes Kafka's mm2.properties keys: clusters, <alias>.log.url (or
    <alias>.bootstrap.servers), <source>-><target>.enabled, <source>-><target>.topics, and any connector
    or worker setting at the top level or per flow. Each enabled flow runs on a worker of its own, on
    the target cluster. Runs until Ctrl-C or SIGTERM.
    """
    from conveyor.cli.mirror import MirrorMaker, load_mirror_maker_config

    try:
        maker = MirrorMaker(load_mirror_maker_config(mm2_properties), targets or None)
    except ConfigError as error:
        raise click.ClickException(f"{mm2_properties}: {error}") from error
    configure_logging(log_level)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    with contextlib.suppress(KeyboardInterrupt):
        maker.run_until(stopping)


@main.command()
@click.option(
    "--records", default=100_000, show_default=True, help="Records the generator produces per task."
)
@click.option("--tasks", default=2, show_default=True, help="Generator tasks (each a Spark task).")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the embedded log and the sink file go (default: a fresh temporary directory).",
)
def demo(records: int, tasks: int, data_dir: Path | None) -> None:
    """Generator -> log -> file, exactly once, on the embedded log and local Spark; then verify the file."""
    from conveyor.cli.demo import run_demo

    configure_logging("WARNING")
    raise SystemExit(run_demo(records, tasks, data_dir))


add_operator_commands(main)
main.add_command(offsets)
main.add_command(apply)
