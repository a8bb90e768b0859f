"""The shipped connectors resolve under Kafka's class names and their short aliases."""

import pytest

from conveyor.api import SinkConnector, SourceConnector
from conveyor.api.config import import_dotted_class
from conveyor.connectors import (
    BUILTIN_CONNECTOR_ALIASES,
    BUILTIN_CONNECTORS,
    FileStreamSinkConnector,
    FileStreamSourceConnector,
    GeneratorSourceConnector,
)
from conveyor.connectors.postgres.jdbc_source import JdbcSourceConnector
from conveyor.plugins.catalog import PluginCatalog, plugin_entry


@pytest.fixture(scope="module")
def catalog() -> PluginCatalog:
    return PluginCatalog(
        (plugin_entry(import_dotted_class(path), name), BUILTIN_CONNECTOR_ALIASES.get(name, ()))
        for name, path in BUILTIN_CONNECTORS.items()
    )


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.file.FileStreamSourceConnector", FileStreamSourceConnector),
        ("FileStreamSourceConnector", FileStreamSourceConnector),
        ("FileStreamSource", FileStreamSourceConnector),
        ("org.apache.kafka.connect.file.FileStreamSinkConnector", FileStreamSinkConnector),
        ("FileStreamSinkConnector", FileStreamSinkConnector),
        ("FileStreamSink", FileStreamSinkConnector),
        ("GeneratorSourceConnector", GeneratorSourceConnector),
        ("Generator", GeneratorSourceConnector),
        ("io.confluent.connect.jdbc.JdbcSourceConnector", JdbcSourceConnector),
        ("JdbcSourceConnector", JdbcSourceConnector),
        ("JdbcSource", JdbcSourceConnector),
    ],
)
def test_each_name_resolves_to_its_connector(catalog: PluginCatalog, name: str, cls: type) -> None:
    entry = catalog.find(name)
    assert entry is not None
    assert entry.cls is cls


def test_every_listed_path_is_a_connector_class() -> None:
    for path in BUILTIN_CONNECTORS.values():
        assert issubclass(import_dotted_class(path), SourceConnector | SinkConnector)
