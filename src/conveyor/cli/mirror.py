"""``conveyor mirror``: MirrorMaker 2's dedicated mode, as Kafka's ``connect-mirror-maker.sh``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.connectors.mirror.maker_config import Flow, MirrorMakerConfig
from conveyor.errors import ConfigError
from conveyor.runtime.properties import read_properties
from conveyor.runtime.worker_config import WorkerConfig

logger = logging.getLogger(__name__)


def load_mirror_maker_config(path: Path) -> MirrorMakerConfig:
    return MirrorMakerConfig.from_props(read_properties(path.read_text()))


class MirrorMaker:
    """One worker per enabled flow, each on its target cluster, each running the flow's connectors."""

    def __init__(self, config: MirrorMakerConfig, targets: Sequence[str] | None = None) -> None:
        self.flows = config.flows(targets)
        if not self.flows:
            raise ConfigError("No replication flow is enabled; set e.g. A->B.enabled = true")
        self.workers: list[tuple[Flow, StandaloneWorker]] = []

    def start(self) -> None:
        for flow in self.flows:
            worker = StandaloneWorker(WorkerConfig.from_props(flow.worker_props))
            herder = worker.start()
            self.workers.append((flow, worker))
            for name, connector in flow.connectors.items():
                herder.put_connector_config(name, connector, allow_replace=True)
            logger.info("Replicating %s; REST API at %s", flow, worker.url)

    def stop(self) -> None:
        for _, worker in reversed(self.workers):
            worker.stop()
        self.workers.clear()

    def run_until(self, stopping: threading.Event) -> None:
        self.start()
        try:
            stopping.wait()
        finally:
            self.stop()
