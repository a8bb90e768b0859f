"""Which dotted paths may be imported to find a plugin: only those inside a plugin package.

A plugin package is Conveyor's own package, a module or package loaded from ``plugin.path``, or a
top-level package that an installed plugin distribution declares through its entry points (see
``entry_points``). A dotted path outside them is refused before anything is imported, so naming a module
in a connector config cannot run its import-time code.
"""

from __future__ import annotations

from conveyor.plugins.entry_points import distribution_plugin_packages
from conveyor.plugins.plugin_path import plugin_path_modules

HOST_PACKAGE = "conveyor"


def discovered_plugin_packages() -> frozenset[str]:
    """Conveyor's package, the plugin path's modules and the plugin distributions' packages, as now."""
    return frozenset({HOST_PACKAGE}) | plugin_path_modules() | distribution_plugin_packages()


def in_plugin_package(path: str, packages: frozenset[str]) -> bool:
    """Whether the module of ``package.module:Class`` or ``package.module.Class`` lies in one of
    ``packages`` and may be imported: a well-formed name, and no ``__main__`` module (importing one runs
    a program, ``conveyor.cli.__main__`` the worker's own command line)."""
    module, separator, _ = path.partition(":")
    if not separator:
        module = path.rpartition(".")[0]
    parts = module.split(".")
    return parts[0] in packages and all(part.isidentifier() for part in parts) and "__main__" not in parts
