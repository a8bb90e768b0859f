"""The part of a connector that only checks its settings and hands them to its tasks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conveyor import __version__
from conveyor.api import ConfigDef, Connector


class ConfiguredConnector(Connector):
    """A connector whose settings are checked against ``CONFIG_DEF`` when it starts and kept, as given,
    to configure its tasks; it holds nothing else, so stopping it releases nothing."""

    CONFIG_DEF: ClassVar[ConfigDef]

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        self._check(props)
        self._props = dict(props)

    def _check(self, props: Mapping[str, str]) -> None:
        """Refuse settings the connector cannot run with: by default, those ``CONFIG_DEF`` refuses."""
        self.CONFIG_DEF.parse(props)

    def stop(self) -> None:
        """Nothing to release: the connector watches nothing in the background."""

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF
