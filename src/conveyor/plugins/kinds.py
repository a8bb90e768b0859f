"""The kinds of plugin Conveyor loads, named as the REST API's ``type`` field names them."""

from __future__ import annotations

import enum

from conveyor.api import Converter, HeaderConverter, Predicate, SinkConnector, SourceConnector, Transformation
from conveyor.api.config_provider import ConfigProvider
from conveyor.api.rest_extension import ConnectRestExtension


class PluginKind(enum.Enum):
    """A plugin kind; the value is the ``type`` string of ``GET /connector-plugins``, as Kafka's
    ``PluginType`` names it (``configprovider``, ``rest_extension``)."""

    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"
    CONFIG_PROVIDER = "configprovider"
    REST_EXTENSION = "rest_extension"

    @property
    def base(self) -> type:
        """The class every plugin of this kind subclasses."""
        return _BASES[self]

    @property
    def is_connector(self) -> bool:
        return self in (PluginKind.SOURCE, PluginKind.SINK)


_BASES: dict[PluginKind, type] = {
    PluginKind.SOURCE: SourceConnector,
    PluginKind.SINK: SinkConnector,
    PluginKind.CONVERTER: Converter,
    PluginKind.HEADER_CONVERTER: HeaderConverter,
    PluginKind.TRANSFORMATION: Transformation,
    PluginKind.PREDICATE: Predicate,
    PluginKind.CONFIG_PROVIDER: ConfigProvider,
    PluginKind.REST_EXTENSION: ConnectRestExtension,
}


def kinds_of(cls: type) -> frozenset[PluginKind]:
    """Every kind ``cls`` can serve as (a class may be both a converter and a header converter)."""
    return frozenset(kind for kind, base in _BASES.items() if issubclass(cls, base) and cls is not base)
