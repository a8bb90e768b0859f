"""Fixtures of the plugin specifications."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from conveyor.plugins import plugin_path, refresh_plugins

from .plugin_files import PLUGIN_MODULE_PREFIX


@pytest.fixture
def clean_plugin_path() -> Iterator[None]:
    """Undo what loading a plugin path does to the interpreter: its sys.path entries, modules, classes."""
    path_before = list(sys.path)
    yield
    sys.path[:] = path_before
    for name in [name for name in sys.modules if name.startswith(PLUGIN_MODULE_PREFIX)]:
        del sys.modules[name]
    with plugin_path._lock:
        plugin_path._plugin_classes.clear()
        plugin_path._module_infos.clear()
    refresh_plugins()
