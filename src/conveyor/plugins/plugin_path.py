"""``plugin.path``: directories of Python modules, packages and wheels the worker loads plugins from.

As Kafka Connect finds plugins in the jars of its ``plugin.path``, a worker finds them in each listed
directory's top-level ``*.py`` modules, packages (directories with an ``__init__.py``) and ``*.whl``
wheels (pure Python; a wheel's ``conveyor.*`` entry points are honoured too); a listed ``*.whl`` file is
a plugin on its own. A subdirectory that is no package is a *plugin directory*, as Kafka's plugin.path
has one directory per plugin (``pip install --target`` makes one): its modules, packages and wheels are
one plugin, whose version is the ``Version`` of the ``*.dist-info`` it holds. Every class in them that
is a connector, converter, transformation or predicate joins the plugin catalog.

Python has no class loaders, so plugins share the interpreter. Two plugin directories may hold the same
module (two versions of one plugin, KIP-891): the first imports under its own name, each later one
under a private alias (a copy of it named ``<module>__plugin_<n>``), and the catalog lists its classes
under the module's own name with their version. Any other plugin that fails to import, or whose module
name another plugin or an installed package already takes, is refused with an error naming its file,
and the other plugins load as if it were absent.
"""

from __future__ import annotations

import dataclasses
import email.parser
import importlib
import importlib.util
import logging
import os
import pkgutil
import shutil
import sys
import tempfile
import threading
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from conveyor.plugins.kinds import kinds_of

logger = logging.getLogger(__name__)

WHEEL_SUFFIX = ".whl"


@dataclass(frozen=True)
class PluginSource:
    """One plugin found on the plugin path: a module file, a package directory or a wheel, and the
    top-level modules it provides."""

    path: Path
    modules: tuple[str, ...]
    plugin_directory: Path | None = None
    """The plugin directory it belongs to, if any: the other versions of its modules live in others."""
    version: str | None = None
    """Its distribution's version (a plugin directory's or wheel's ``*.dist-info``), if it has one."""
    listed_modules: tuple[str, ...] = ()
    """For a copy imported under aliases: the modules' own names, in the order of ``modules``."""

    @property
    def is_wheel(self) -> bool:
        return self.path.suffix == WHEEL_SUFFIX

    @property
    def import_root(self) -> Path:
        """The ``sys.path`` entry its modules import from: the wheel itself, or the containing directory."""
        return self.path if self.is_wheel else self.path.parent


@dataclass(frozen=True)
class PluginLoadFailure:
    """A plugin (or plugin.path entry) that was refused, and why."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"Plugin {self.path} was not loaded: {self.reason}"


@dataclass
class LoadedPlugins:
    """What loading the plugin path gave: the plugins that loaded, their classes, and the refused ones."""

    sources: list[PluginSource] = field(default_factory=list)
    classes: list[type] = field(default_factory=list)
    failures: list[PluginLoadFailure] = field(default_factory=list)

    @property
    def modules(self) -> tuple[str, ...]:
        """The top-level modules of every loaded plugin, in load order."""
        return tuple(module for source in self.sources for module in source.modules)

    @property
    def module_info(self) -> tuple[ModuleInfo, ...]:
        """How each loaded module is listed, and its version, for executors to register alike."""
        return tuple(info for source in self.sources for info in _infos_of(source))


@dataclass(frozen=True)
class ModuleInfo:
    """A plugin module as imported (``module``), the name it is listed under, and its version if known."""

    module: str
    listed_as: str
    version: str | None


def _infos_of(source: PluginSource) -> list[ModuleInfo]:
    listed = source.listed_modules or source.modules
    return [
        ModuleInfo(module, name, source.version) for module, name in zip(source.modules, listed, strict=True)
    ]


_lock = threading.Lock()
_plugin_classes: dict[str, list[type]] = {}
"""Plugin classes by the top-level module that provides them, for the catalog."""
_module_infos: dict[str, ModuleInfo] = {}
"""How each top-level plugin module is listed and its version, by the name it is imported under."""


def module_info(module: str) -> ModuleInfo | None:
    """How the top-level plugin module ``module`` is listed and its version; None for no plugin module."""
    with _lock:
        return _module_infos.get(module)


def plugin_path_classes() -> list[type]:
    """Every plugin class loaded from the plugin path (or from shipped plugin modules) so far."""
    with _lock:
        return [cls for classes in _plugin_classes.values() for cls in classes]


def plugin_path_modules() -> frozenset[str]:
    """The top-level modules of every plugin loaded from the plugin path (or shipped to this executor)."""
    with _lock:
        return frozenset(_plugin_classes)


def find_plugin_sources(entries: Iterable[str | Path]) -> tuple[list[PluginSource], list[PluginLoadFailure]]:
    """The plugins each plugin.path entry holds, in name order, and the entries that hold none."""
    sources: list[PluginSource] = []
    failures: list[PluginLoadFailure] = []
    for entry in entries:
        path = Path(entry).expanduser().resolve()
        if path.is_file() and path.suffix == WHEEL_SUFFIX:
            candidates: Iterable[Path] = [path]
        elif path.is_dir():
            candidates = sorted(path.iterdir())
        else:
            failures.append(PluginLoadFailure(path, "no such directory or wheel"))
            continue
        for candidate in candidates:
            if _is_plugin_directory(candidate):
                version = _directory_version(candidate)
                for member in sorted(candidate.iterdir()):
                    _add_source(member, sources, failures, candidate, version)
            else:
                _add_source(candidate, sources, failures)
    return sources, failures


def _add_source(
    path: Path,
    sources: list[PluginSource],
    failures: list[PluginLoadFailure],
    plugin_directory: Path | None = None,
    version: str | None = None,
) -> None:
    try:
        source = _source_of(path)
    except (OSError, zipfile.BadZipFile) as error:
        failures.append(PluginLoadFailure(path, f"unreadable wheel: {error}"))
        return
    if source is not None:
        sources.append(
            dataclasses.replace(source, plugin_directory=plugin_directory, version=source.version or version)
        )


def _is_plugin_directory(path: Path) -> bool:
    return (
        path.is_dir()
        and not (path / "__init__.py").is_file()
        and path.name != "__pycache__"
        and not path.name.endswith((".dist-info", ".egg-info"))
    )


def _directory_version(directory: Path) -> str | None:
    """The ``Version`` of the first ``*.dist-info`` in a plugin directory, if it holds one."""
    for metadata in sorted(directory.glob("*.dist-info/METADATA")):
        return _metadata_version(metadata.read_text(errors="replace"))
    return None


def _metadata_version(text: str) -> str | None:
    version = email.parser.HeaderParser().parsestr(text).get("Version")
    return str(version).strip() if version else None


def _source_of(path: Path) -> PluginSource | None:
    if path.suffix == WHEEL_SUFFIX and path.is_file():
        return PluginSource(path, _wheel_modules(path), version=_wheel_version(path))
    if path.suffix == ".py" and path.is_file() and path.stem.isidentifier():
        return PluginSource(path, (path.stem,))
    if path.is_dir() and path.name.isidentifier() and (path / "__init__.py").is_file():
        return PluginSource(path, (path.name,))
    return None


def _wheel_modules(wheel: Path) -> tuple[str, ...]:
    """The top-level modules and packages a wheel installs (its metadata directories aside)."""
    modules: dict[str, None] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            top, separator, _ = name.partition("/")
            if top.endswith((".dist-info", ".data")):
                continue
            if separator and top.isidentifier():
                modules[top] = None
            elif not separator and top.endswith(".py") and top[:-3].isidentifier():
                modules[top[:-3]] = None
    return tuple(modules)


def _wheel_version(wheel: Path) -> str | None:
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            top, _, rest = name.partition("/")
            if top.endswith(".dist-info") and rest == "METADATA":
                return _metadata_version(archive.read(name).decode(errors="replace"))
    return None


def load_plugin_path(entries: Sequence[str | Path]) -> LoadedPlugins:
    """Find, import and register the plugins of ``entries``; refused plugins are logged and reported."""
    sources, failures = find_plugin_sources(entries)
    loaded = LoadedPlugins(failures=failures)
    accepted: list[PluginSource] = []
    taken: dict[str, Path] = {}
    versioned: dict[str, PluginSource] = {}
    for source in sources:
        if _another_version(source, versioned):
            source = _aliased_copy(source, len(accepted))
        reason = _clash(source, taken)
        if reason is not None:
            loaded.failures.append(PluginLoadFailure(source.path, reason))
            continue
        taken.update(dict.fromkeys(source.modules, source.path))
        if source.plugin_directory is not None and not source.listed_modules:
            versioned.update(dict.fromkeys(source.modules, source))
        accepted.append(source)
    for root in dict.fromkeys(source.import_root for source in accepted):
        if str(root) not in sys.path:
            sys.path.append(str(root))
    importlib.invalidate_caches()
    for source in accepted:
        try:
            classes = [cls for module in source.modules for cls in _import_plugin_classes(module)]
        except BaseException as error:  # a plugin's import may raise anything, SystemExit included
            _forget_modules(source.modules)
            loaded.failures.append(PluginLoadFailure(source.path, f"{type(error).__name__}: {error}"))
            continue
        _register(_infos_of(source), classes)
        loaded.sources.append(source)
        loaded.classes.extend(classes)
    for failure in loaded.failures:
        logger.error("%s", failure)
    return loaded


def _another_version(source: PluginSource, versioned: dict[str, PluginSource]) -> bool:
    """Whether ``source`` is another plugin directory's copy of modules an earlier plugin directory holds."""
    if source.plugin_directory is None or source.is_wheel:
        return False
    earlier = [versioned.get(module) for module in source.modules]
    return any(other is not None and other.plugin_directory != source.plugin_directory for other in earlier)


def _aliased_copy(source: PluginSource, index: int) -> PluginSource:
    """A copy of ``source`` whose module is named ``<module>__plugin_<index>``, so that it imports beside
    the version already imported under the module's own name."""
    (module,) = source.modules
    alias = f"{module}__plugin_{index}"
    staging = Path(tempfile.mkdtemp(prefix="conveyor-plugin-version-"))
    if source.path.is_dir():
        copied = staging / alias
        shutil.copytree(source.path, copied, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        copied = staging / f"{alias}.py"
        shutil.copyfile(source.path, copied)
    return dataclasses.replace(source, path=copied, modules=(alias,), listed_modules=(module,))


def _clash(source: PluginSource, taken: dict[str, Path]) -> str | None:
    """Why ``source`` cannot load beside what is installed and the plugins accepted before it, if so."""
    for module in source.modules:
        if module in taken:
            return f"its module '{module}' is already provided by the plugin {taken[module]}"
        installed = (
            sys.modules[module].__spec__ if module in sys.modules else importlib.util.find_spec(module)
        )
        if installed is None:
            continue
        where = installed.origin or ", ".join(installed.submodule_search_locations or []) or "built in"
        if not _within(where, source.path):
            return f"its module '{module}' would shadow the installed module at {where}"
    return None


def _within(location: str, plugin: Path) -> bool:
    """Whether ``location`` is the plugin's own file (it was loaded before, e.g. by an earlier worker)."""
    return location == str(plugin) or location.startswith(f"{plugin}{os.sep}")


def use_shipped_plugins(modules: Sequence[str], infos: Sequence[ModuleInfo] = ()) -> None:
    """On an executor: register the plugin classes of modules the worker shipped (already on sys.path),
    listed and versioned as ``infos`` (from ``LoadedPlugins.module_info``) say.

    A module that is registered already is skipped, so each task incarnation may call this.
    """
    by_module = {info.module: info for info in infos}
    for module in modules:
        with _lock:
            if module in _plugin_classes:
                continue
        try:
            classes = _import_plugin_classes(module)
        except Exception as error:
            logger.error(
                "Shipped plugin module %r failed to load: %s: %s", module, type(error).__name__, error
            )
            continue
        _register([by_module.get(module, ModuleInfo(module, module, None))], classes)


def _register(infos: Sequence[ModuleInfo], classes: list[type]) -> None:
    from conveyor.plugins import refresh_plugins

    with _lock:
        for info in infos:
            _plugin_classes[info.module] = [cls for cls in classes if _top_module(cls) == info.module]
            _module_infos[info.module] = info
    refresh_plugins()


def _import_plugin_classes(module_name: str) -> list[type]:
    """Every plugin class defined in ``module_name`` or, for a package, in any of its submodules."""
    classes: dict[type, None] = {}
    for module in _module_tree(importlib.import_module(module_name)):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and kinds_of(value)
                and not getattr(value, "__abstractmethods__", None)
            ):
                classes[value] = None
    return list(classes)


def _module_tree(module: ModuleType) -> Iterator[ModuleType]:
    yield module
    search_path = getattr(module, "__path__", None)
    if search_path is None:
        return
    for info in pkgutil.walk_packages(search_path, prefix=module.__name__ + "."):
        yield importlib.import_module(info.name)


def _top_module(cls: type) -> str:
    return cls.__module__.partition(".")[0]


def _forget_modules(tops: Sequence[str]) -> None:
    for name in list(sys.modules):
        if name.partition(".")[0] in tops:
            del sys.modules[name]
