"""Errors raised when a plugin name cannot be turned into a usable class."""

from __future__ import annotations

from conveyor.errors import ConnectError, NotFoundError


class PluginNotFoundError(NotFoundError):
    """No plugin is known by that name; the message lists the closest known names."""

    def __init__(self, message: str, name: str, suggestions: list[str]) -> None:
        super().__init__(message)
        self.name = name
        self.suggestions = suggestions


class InvalidPluginError(ConnectError):
    """The name resolves to a class that is not a plugin of the kind asked for."""


class InvalidPluginVersionError(InvalidPluginError):
    """A ``*.plugin.version`` value that is neither a version nor a version range."""


class PluginVersionNotFoundError(InvalidPluginError):
    """The plugin is installed, but in no version the requirement accepts; ``versions`` are installed."""

    def __init__(self, message: str, name: str, versions: list[str]) -> None:
        super().__init__(message)
        self.name = name
        self.versions = versions
