"""Only plugin packages are imported: a dotted path elsewhere is refused before its module runs.

A plugin package is Conveyor's own, a plugin.path module, or a package an installed distribution
declares through its entry points.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conveyor.api import ConfigDef, ConfigError, ConfigType
from conveyor.plugins import (
    PluginKind,
    PluginNotFoundError,
    import_plugin_class,
    load_plugin_class,
    load_plugin_path,
    refresh_plugins,
)

from .plugin_files import connector_source, install_distribution, unique_module, write_module

pytestmark = pytest.mark.usefixtures("clean_plugin_path")

SIDE_EFFECT = """
from pathlib import Path
from conveyor.api import ConfigProvider

Path({marker!r}).write_text("imported")


class Thing(ConfigProvider):
    def get(self, path, keys=None):
        raise NotImplementedError
"""


@pytest.fixture
def importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """A module on sys.path that leaves a marker file when it is imported, and that marker."""
    module = unique_module("sidefx")
    marker = tmp_path / "marker"
    write_module(tmp_path / "site", module, SIDE_EFFECT.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    refresh_plugins()
    return module, marker


def test_a_dotted_path_outside_the_plugin_packages_is_not_imported(importable: tuple[str, Path]) -> None:
    module, marker = importable
    with pytest.raises(PluginNotFoundError, match="is not in a plugin package"):
        load_plugin_class(f"{module}.Thing")
    assert not marker.exists()
    assert module not in sys.modules


def test_a_class_config_value_outside_the_plugin_packages_is_not_imported(
    importable: tuple[str, Path],
) -> None:
    module, marker = importable
    definition = ConfigDef().define("value.converter", ConfigType.CLASS)
    with pytest.raises(ConfigError, match=r"value\.converter"):
        definition.parse({"value.converter": f"{module}:Thing"})
    assert not marker.exists()


def test_a_worker_side_class_outside_the_plugin_packages_is_not_imported(
    importable: tuple[str, Path],
) -> None:
    module, marker = importable
    with pytest.raises(PluginNotFoundError, match="is not in a plugin package"):
        import_plugin_class(f"{module}:Thing")
    assert not marker.exists()


def test_a_standard_library_class_is_not_a_plugin() -> None:
    with pytest.raises(PluginNotFoundError, match="is not in a plugin package"):
        load_plugin_class("this.X")
    with pytest.raises(PluginNotFoundError, match="is not in a plugin package"):
        load_plugin_class("subprocess.Popen", PluginKind.SOURCE)


def test_a_main_module_is_not_imported_even_in_a_plugin_package() -> None:
    with pytest.raises(PluginNotFoundError, match="is not in a plugin package"):
        load_plugin_class("conveyor.cli.__main__.X")
    with pytest.raises(PluginNotFoundError, match="is not in a plugin package"):
        import_plugin_class("conveyor.cli.__main__:X")
    assert "conveyor.cli.__main__" not in sys.modules


def test_a_malformed_dotted_path_is_not_found() -> None:
    for name in ("conveyor..X", "conveyor.cli..X", "conveyor.1x.X", ".conveyor.X"):
        with pytest.raises(PluginNotFoundError):
            load_plugin_class(name)


def test_a_distribution_declares_its_package_a_plugin_package(
    importable: tuple[str, Path], tmp_path: Path
) -> None:
    module, marker = importable
    install_distribution(tmp_path / "site", f"[conveyor.plugin_packages]\nsidefx = {module}\n")
    refresh_plugins()
    assert import_plugin_class(f"{module}:Thing").__name__ == "Thing"
    assert marker.exists()


def test_the_package_of_a_distributions_plugin_entry_point_is_a_plugin_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = unique_module("entry")
    write_module(tmp_path, module, connector_source("EntrySource") + "\n\nclass Helper:\n    pass\n")
    install_distribution(tmp_path, f"[conveyor.connectors]\nentry = {module}:EntrySource\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh_plugins()
    assert import_plugin_class(f"{module}.Helper").__name__ == "Helper"


def test_a_plugin_path_module_is_a_plugin_package(tmp_path: Path) -> None:
    module = unique_module("onpath")
    write_module(tmp_path / "plugins", module, SIDE_EFFECT.format(marker=str(tmp_path / "marker")))
    load_plugin_path([tmp_path / "plugins"])
    assert import_plugin_class(f"{module}:Thing").__module__ == module


def test_conveyors_own_package_is_a_plugin_package() -> None:
    provider = import_plugin_class("conveyor.settings.config_providers.file:FileConfigProvider")
    assert provider.__name__ == "FileConfigProvider"
