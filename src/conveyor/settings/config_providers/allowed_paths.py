"""The ``allowed.paths`` setting of the file and directory providers (KIP-993), and reading files under it.

A path is checked where it really is: every symlink (of the file, of the directory, of any parent) is
resolved and ``..`` collapsed before the check, so a link inside an allowed directory that points out
of it is refused. A hard link cannot be told apart from the file's other names by its path, so when
``allowed.paths`` is set a file with more than one link is refused: one of its other names may lie
outside the allowed directories, and nothing in the file says which.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from conveyor.api.config import ConfigDef, ConfigType, Importance
from conveyor.api.config_provider import ConfigProvider

ALLOWED_PATHS_CONFIG = "allowed.paths"


def allowed_paths_config_def() -> ConfigDef:
    """The one setting of the file and directory providers."""
    return ConfigDef().define(
        ALLOWED_PATHS_CONFIG,
        ConfigType.LIST,
        default="",
        importance=Importance.MEDIUM,
        documentation="A comma-separated list of paths that this config provider is allowed to access. "
        "If not set, all paths are allowed.",
    )


class PathConfigProvider(ConfigProvider):
    """A provider that reads files, only under ``allowed.paths`` when that is set."""

    def __init__(self) -> None:
        self.allowed = AllowedPaths({})

    def configure(self, configs: Mapping[str, str]) -> None:
        self.allowed = AllowedPaths(configs)

    def config(self) -> ConfigDef:
        return allowed_paths_config_def()


class AllowedPaths:
    """Directories a provider may read under; everything when the setting is empty or absent."""

    def __init__(self, configs: Mapping[str, str]) -> None:
        raw = configs.get(ALLOWED_PATHS_CONFIG, "")
        self.roots = [Path(p.strip()).resolve() for p in raw.split(",") if p.strip()]

    def permits(self, path: Path) -> bool:
        """Whether ``path``, once its symlinks and ``..`` are resolved, lies under an allowed directory."""
        resolved = path.resolve()
        return not self.roots or any(resolved.is_relative_to(root) for root in self.roots)

    def read_text(self, path: Path) -> str | None:
        """The content of the regular file ``path`` if it may be read; ``None`` if it lies outside the
        allowed directories, is not a regular file, or (with allowed paths set) has other hard links;
        an ``OSError`` if it cannot be read.

        The file is opened at its resolved path without following a last-moment symlink, and the checks
        are made on the opened file, so swapping the file for a link after the check gains nothing.
        """
        resolved = path.resolve()
        if not self.permits(resolved):
            return None
        try:
            descriptor = os.open(resolved, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as error:
            if error.errno == errno.ELOOP:
                return None
            raise
        with open(descriptor, encoding="utf-8", closefd=True) as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode) or (self.roots and status.st_nlink > 1):
                return None
            return file.read()
