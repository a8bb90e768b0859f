"""``python -m conveyor.kafka_broker [directory]``: fetch Kafka, start a broker, serve until Ctrl-C."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from conveyor.kafka_broker.broker import KafkaBroker
from conveyor.lifecycle import serve_until_stopped


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a single-node Apache Kafka broker for demos.")
    parser.add_argument("directory", nargs="?", type=Path, help="store and settings (a new temporary one)")
    parser.add_argument("--port", type=int, default=9092, help="the client port (0: any free port)")
    arguments = parser.parse_args()
    directory = arguments.directory or Path(tempfile.mkdtemp(prefix="conveyor-kafka-"))
    serve_until_stopped(
        KafkaBroker(directory, port=arguments.port),
        lambda broker: (
            f"Kafka {broker.distribution.version} at {broker.bootstrap_servers}; log.url=kafka://"
            f"{broker.bootstrap_servers}; store in {directory}; Ctrl-C stops it"
        ),
    )


if __name__ == "__main__":
    main()
