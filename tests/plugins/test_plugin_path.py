"""plugin.path: the worker loads plugins from directories of modules, packages and wheels, and refuses
bad ones with an error that names them, without losing the others."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conveyor.plugins import (
    PluginKind,
    PluginNotFoundError,
    list_plugins,
    load_plugin_class,
    load_plugin_path,
    use_shipped_plugins,
)

from .plugin_files import connector_source, unique_module, write_module, write_package, write_wheel

pytestmark = pytest.mark.usefixtures("clean_plugin_path")


def test_a_module_in_a_plugin_directory_provides_its_connector_by_simple_name(tmp_path: Path) -> None:
    module = unique_module("module")
    write_module(tmp_path / "plugins", module, connector_source("ModuleSourceConnector"))

    loaded = load_plugin_path([str(tmp_path / "plugins")])

    connector = load_plugin_class("ModuleSourceConnector", PluginKind.SOURCE)
    assert connector.__module__ == module
    assert loaded.modules == (module,) and loaded.failures == []


def test_a_package_provides_the_plugins_of_its_submodules(tmp_path: Path) -> None:
    package = unique_module("package")
    write_package(
        tmp_path,
        package,
        {"__init__.py": "", "sources/__init__.py": "", "sources/deep.py": connector_source("Deep")},
    )

    load_plugin_path([tmp_path])

    assert load_plugin_class("Deep").__module__ == f"{package}.sources.deep"


def test_a_wheel_provides_its_modules_and_its_entry_points(tmp_path: Path) -> None:
    module = unique_module("wheel")
    alias = f"{module}-source"
    write_wheel(
        tmp_path, module, connector_source("WheelSourceConnector"), {alias: f"{module}:WheelSourceConnector"}
    )

    load_plugin_path([tmp_path])

    assert load_plugin_class("WheelSourceConnector").__module__ == module
    assert load_plugin_class(alias) is load_plugin_class("WheelSourceConnector")


def test_a_wheel_listed_on_its_own_is_a_plugin(tmp_path: Path) -> None:
    module = unique_module("lone_wheel")
    wheel = write_wheel(tmp_path / "dist", module, connector_source("LoneWheelConnector"))

    load_plugin_path([wheel])

    assert load_plugin_class("LoneWheelConnector").__module__ == module


def test_plugin_path_connectors_are_listed_with_their_version(tmp_path: Path) -> None:
    module = unique_module("listed")
    write_module(tmp_path, module, connector_source("ListedConnector"))

    load_plugin_path([tmp_path])

    listed = {plugin.class_name: plugin for plugin in list_plugins(PluginKind.SOURCE)}
    assert listed[f"{module}.ListedConnector"].version == "7.1"


def test_a_plugin_that_fails_to_import_is_refused_by_path_and_the_others_still_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken, healthy = unique_module("broken"), unique_module("healthy")
    broken_file = write_module(tmp_path, broken, "import module_that_is_nowhere\n")
    write_module(tmp_path, healthy, connector_source("HealthyConnector"))

    loaded = load_plugin_path([tmp_path])

    assert [str(failure) for failure in loaded.failures] == [
        f"Plugin {broken_file} was not loaded: ModuleNotFoundError: No module named 'module_that_is_nowhere'"
    ]
    assert str(loaded.failures[0]) in caplog.text
    assert loaded.modules == (healthy,)
    assert load_plugin_class("HealthyConnector").__module__ == healthy


def test_a_plugin_that_exits_while_importing_does_not_stop_the_worker(tmp_path: Path) -> None:
    exiting = write_module(tmp_path, unique_module("exiting"), "raise SystemExit(3)\n")

    loaded = load_plugin_path([tmp_path])

    assert [failure.path for failure in loaded.failures] == [exiting]
    assert "SystemExit" in loaded.failures[0].reason


def test_a_plugin_that_would_shadow_an_installed_module_is_refused(tmp_path: Path) -> None:
    impostor = write_module(tmp_path, "json", connector_source("ImpostorConnector"))

    loaded = load_plugin_path([tmp_path])

    assert [failure.path for failure in loaded.failures] == [impostor]
    assert "its module 'json' would shadow the installed module at" in loaded.failures[0].reason
    with pytest.raises(PluginNotFoundError):
        load_plugin_class("ImpostorConnector")


def test_a_plugin_directory_loaded_again_in_the_same_process_loads_again(tmp_path: Path) -> None:
    module, package = unique_module("again"), unique_module("again_pkg")
    write_module(tmp_path, module, connector_source("AgainConnector"))
    write_package(tmp_path, package, {"__init__.py": connector_source("AgainPackageConnector")})
    load_plugin_path([tmp_path])

    loaded = load_plugin_path([tmp_path])

    assert (loaded.modules, loaded.failures) == ((module, package), [])
    assert load_plugin_class("AgainConnector").__module__ == module


def test_a_module_two_plugins_provide_is_loaded_from_the_first_directory_only(tmp_path: Path) -> None:
    module = unique_module("twice")
    write_module(tmp_path / "a", module, connector_source("FirstConnector"))
    second = write_module(tmp_path / "b", module, connector_source("SecondConnector"))

    loaded = load_plugin_path([tmp_path / "a", tmp_path / "b"])

    assert [(failure.path, failure.reason) for failure in loaded.failures] == [
        (second, f"its module '{module}' is already provided by the plugin {tmp_path / 'a' / f'{module}.py'}")
    ]
    assert load_plugin_class("FirstConnector").__module__ == module


def test_a_missing_plugin_path_entry_is_reported(tmp_path: Path) -> None:
    loaded = load_plugin_path([tmp_path / "nowhere"])

    assert [str(failure) for failure in loaded.failures] == [
        f"Plugin {tmp_path / 'nowhere'} was not loaded: no such directory or wheel"
    ]


def test_files_that_are_no_plugins_are_passed_over(tmp_path: Path) -> None:
    (tmp_path / "README.txt").write_text("not a plugin")
    (tmp_path / "not-a-module.py").write_text("raise RuntimeError('never imported')")
    (tmp_path / "data").mkdir()

    loaded = load_plugin_path([tmp_path])

    assert (loaded.sources, loaded.failures) == ([], [])


def test_an_executor_registers_the_plugins_of_shipped_modules(tmp_path: Path) -> None:
    module = unique_module("shipped")
    write_module(tmp_path, module, connector_source("ShippedConnector"))
    sys.path.append(str(tmp_path))

    use_shipped_plugins([module])

    assert load_plugin_class("ShippedConnector").__module__ == module
