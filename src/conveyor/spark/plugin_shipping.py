"""Shipping the worker's plugin.path plugins to its Spark executors, which may be on other machines.

The modules and packages of each plugin.path directory go into one zip, and each wheel goes as it is
(a pure-Python wheel is an importable zip, its metadata included); Spark's ``addPyFile`` hands them to
every executor and puts them on its Python path, so a connector that is not installed on the cluster
runs there. Tasks then register the plugins' classes on their executor (``use_shipped_plugins``).
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
import zipfile
from collections.abc import Iterable
from pathlib import Path

from pyspark import SparkContext

from conveyor.plugins.plugin_path import PluginSource


def plugin_archives(sources: Iterable[PluginSource], staging: Path) -> list[Path]:
    """One zip per directory of module and package plugins, one per wheel, written under ``staging``.

    Names are unique, since Spark refuses a second file of the same name with other content.
    """
    tag = uuid.uuid4().hex[:8]
    by_directory: dict[Path, list[PluginSource]] = {}
    archives: list[Path] = []
    for source in sources:
        if source.is_wheel:
            archive = staging / f"{source.path.name}-{tag}.zip"
            shutil.copyfile(source.path, archive)
            archives.append(archive)
        else:
            by_directory.setdefault(source.path.parent, []).append(source)
    for index, (directory, members) in enumerate(by_directory.items()):
        archive = staging / f"plugins-{index}-{directory.name}-{tag}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for source in members:
                for file in _files_of(source.path):
                    zipped.write(file, file.relative_to(directory).as_posix())
        archives.append(archive)
    return archives


def _files_of(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(file for file in path.rglob("*") if file.is_file() and "__pycache__" not in file.parts)


def ship_plugins(context: SparkContext, sources: Iterable[PluginSource]) -> list[Path]:
    """Add the plugins to the Python path of every executor of ``context``; the archives shipped."""
    listed = list(sources)
    if not listed:
        return []
    staging = Path(tempfile.mkdtemp(prefix="conveyor-plugins-"))
    archives = plugin_archives(listed, staging)
    for archive in archives:
        context.addPyFile(str(archive))
    return archives
