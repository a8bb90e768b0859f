"""``conveyor mirror``: MirrorMaker 2's dedicated mode, as Kafka's ``connect-mirror-maker.sh``.

Each enabled flow runs on a worker of the group ``<source>-mm2`` on its target cluster (KIP-710), so
that several processes started on the same ``mm2.properties`` share the flow's tasks, each task running
once, and carry on when any of them dies. Whichever process leads a flow's group writes the flow's
connector configs, as they stand in its file, once it leads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from conveyor.cli.worker_process import DistributedWorker
from conveyor.connectors.mirror.maker_config import Flow, MirrorMakerConfig
from conveyor.errors import ConfigError, ConnectError, NotFoundError
from conveyor.herder.distributed.herder import DistributedHerder
from conveyor.settings.properties import read_properties
from conveyor.settings.worker_config import WorkerConfig

logger = logging.getLogger(__name__)

#: How often a flow's worker looks whether it leads and its connectors' configs are written.
CONFIG_CHECK_INTERVAL_S = 1.0


def load_mirror_maker_config(path: Path) -> MirrorMakerConfig:
    return MirrorMakerConfig.from_props(read_properties(path.read_text()))


class FlowWorker:
    """One flow's worker in its group, and the thread that writes the flow's connector configs while this
    worker leads the group and they differ from the file's."""

    def __init__(self, flow: Flow) -> None:
        self.flow = flow
        self.worker = DistributedWorker(WorkerConfig.from_props(flow.worker_props, standalone=False))
        self._stopping = threading.Event()
        self._writer = threading.Thread(target=self._keep_configs, name=f"mirror-configs-{flow}", daemon=True)

    def start(self) -> None:
        herder = self.worker.start()
        self._herder = herder
        self._writer.start()
        logger.info(
            "Replicating %s in group %s; REST API at %s",
            self.flow,
            self.worker.config.group_id,
            self.worker.url,
        )

    def stop(self) -> None:
        self._stopping.set()
        if self._writer.is_alive():
            self._writer.join()
        self.worker.stop()

    def _keep_configs(self) -> None:
        while not self._stopping.wait(CONFIG_CHECK_INTERVAL_S):
            if not self._herder.is_leader():
                continue
            try:
                write_differing_configs(self._herder, self.flow.connectors)
            except ConnectError as error:
                logger.info("Connector configs of %s not written yet (%s); trying again", self.flow, error)


def write_differing_configs(
    herder: DistributedHerder, connectors: Mapping[str, Mapping[str, str]]
) -> list[str]:
    """Write each connector config that is missing or differs from ``connectors``; the names written."""
    written = []
    for name, config in connectors.items():
        wanted = {**config, "name": name}
        try:
            if herder.connector_config(name) == wanted:
                continue
        except NotFoundError:
            pass
        herder.put_connector_config(name, wanted, allow_replace=True)
        written.append(name)
    return written


class MirrorMaker:
    """A worker per enabled flow, each in the flow's group on its target cluster."""

    def __init__(self, config: MirrorMakerConfig, targets: Sequence[str] | None = None) -> None:
        self.flows = config.flows(targets)
        if not self.flows:
            raise ConfigError("No replication flow is enabled; set e.g. A->B.enabled = true")
        self.workers: list[FlowWorker] = []

    def start(self) -> None:
        for flow in self.flows:
            worker = FlowWorker(flow)
            worker.start()
            self.workers.append(worker)

    def stop(self) -> None:
        for worker in reversed(self.workers):
            worker.stop()
        self.workers.clear()

    def run_until(self, stopping: threading.Event) -> None:
        self.start()
        try:
            stopping.wait()
        finally:
            self.stop()
