"""Writing plugins into plugin.path directories as users would: module files, packages and wheels."""

from __future__ import annotations

import uuid
import zipfile
from pathlib import Path


def connector_source(connector: str) -> str:
    """A module defining a source connector ``connector`` and its task."""
    return f"""
from conveyor.api import ConfigDef, SourceConnector, SourceTask


class {connector}Task(SourceTask):
    def version(self):
        return "7.1"

    def start(self, props):
        pass

    def poll(self):
        return None

    def stop(self):
        pass


class {connector}(SourceConnector):
    def version(self):
        return "7.1"

    def start(self, props):
        pass

    def task_class(self):
        return {connector}Task

    def task_configs(self, max_tasks):
        return [{{}}]

    def stop(self):
        pass

    def config(self):
        return ConfigDef()
"""


PLUGIN_MODULE_PREFIX = "cvplug_"


def unique_module(name: str) -> str:
    """A module name no other test uses, which ``clean_plugin_path`` forgets afterwards."""
    return f"{PLUGIN_MODULE_PREFIX}{name}_{uuid.uuid4().hex[:8]}"


def write_module(directory: Path, module: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{module}.py"
    path.write_text(text)
    return path


def write_package(directory: Path, package: str, files: dict[str, str]) -> Path:
    """A package directory; ``files`` maps paths inside it (``__init__.py`` included) to their text."""
    root = directory / package
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def write_wheel(directory: Path, module: str, text: str, entry_points: dict[str, str] | None = None) -> Path:
    """A pure-Python wheel holding ``module``, with ``conveyor.connectors`` entry points if given."""
    directory.mkdir(parents=True, exist_ok=True)
    distribution = module.replace("_", "-")
    wheel = directory / f"{module}-1.0-py3-none-any.whl"
    dist_info = f"{module}-1.0.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{module}/__init__.py", text)
        archive.writestr(
            f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n"
        )
        archive.writestr(
            f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        if entry_points:
            lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
            archive.writestr(f"{dist_info}/entry_points.txt", f"[conveyor.connectors]\n{lines}")
        archive.writestr(f"{dist_info}/RECORD", "")
    return wheel


def install_distribution(site: Path, entry_points: str) -> None:
    """An installed distribution in ``site`` (a sys.path entry), ``entry_points`` its entry_points.txt."""
    dist_info = site / "conveyor_sample_plugins-1.0.dist-info"
    dist_info.mkdir()
    metadata = "Metadata-Version: 2.1\nName: conveyor-sample-plugins\nVersion: 1.0\n"
    (dist_info / "METADATA").write_text(metadata)
    (dist_info / "entry_points.txt").write_text(entry_points)


def versioned_plugin_source(version: str) -> str:
    """A module of one version of a plugin: a source connector and its task that say ``version``, and a
    transformation and predicate that do not (they take the plugin directory's metadata version). Each
    kind has a config key named after the version, so that its config shows which version answered."""
    tag = version.replace(".", "_")
    return f'''
import threading

from conveyor.api import ConfigDef, Predicate, SourceConnector, SourceTask, Transformation
from conveyor.api.config import ConfigType, Importance

VERSION = "{version}"


def _keys(prefix):
    return ConfigDef().define(
        f"{{prefix}}.only.in.{tag}", ConfigType.STRING, default="", importance=Importance.LOW,
        documentation="A key only version {version} has.",
    )


class VersionedSourceTask(SourceTask):
    def version(self):
        return VERSION

    def start(self, props):
        self._stopping = threading.Event()

    def poll(self):
        self._stopping.wait(0.5)
        return None

    def stop(self):
        self._stopping.set()


class VersionedSource(SourceConnector):
    def version(self):
        return VERSION

    def start(self, props):
        pass

    def task_class(self):
        return VersionedSourceTask

    def task_configs(self, max_tasks):
        return [{{}}]

    def stop(self):
        pass

    def config(self):
        return _keys("source")


class VersionedStamp(Transformation):
    def configure(self, configs):
        pass

    def apply(self, record):
        return record

    def config(self):
        return _keys("stamp")


class VersionedAlways(Predicate):
    def configure(self, configs):
        pass

    def test(self, record):
        return True

    def config(self):
        return _keys("always")
'''


def write_plugin_directory(plugin_path: Path, module: str, version: str, text: str) -> Path:
    """A plugin directory as ``pip install --target`` leaves one: the module and its distribution's
    metadata, named after the version so that several versions of ``module`` sit side by side."""
    directory = plugin_path / f"{module}-{version}"
    write_module(directory, module, text)
    dist_info = directory / f"{module}-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: {version}\n"
    )
    return directory
