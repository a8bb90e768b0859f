"""Resolving plugin names: dotted paths, aliases, entry points, built-ins, and helpful failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.api import ConfigDef, ConfigError, ConfigType
from conveyor.connectors import BUILTIN_CONNECTORS
from conveyor.plugins import (
    InvalidPluginError,
    PluginCatalog,
    PluginDesc,
    PluginKind,
    PluginNotFoundError,
    PluginResolver,
    refresh_plugins,
)
from conveyor.plugins.catalog import plugin_entry

from .plugin_files import install_distribution
from .sample_plugins import EchoSourceConnector, NotAPlugin, RenameTopic

SAMPLES = "plugins.sample_plugins"


def resolver_of(*classes: type) -> PluginResolver:
    """A resolver that knows ``classes`` and may import dotted paths from the samples' package."""
    return PluginResolver(PluginCatalog(((plugin_entry(cls), ()) for cls in classes), packages={"plugins"}))


@pytest.mark.parametrize(
    "name", [f"{SAMPLES}:RenameTopic", f"{SAMPLES}.RenameTopic", f"  {SAMPLES}.RenameTopic "]
)
def test_a_python_path_resolves_to_its_class(name: str) -> None:
    assert resolver_of().load(name, PluginKind.TRANSFORMATION) is RenameTopic


def test_a_connector_resolves_by_simple_name_with_or_without_its_suffix() -> None:
    resolver = resolver_of(EchoSourceConnector)
    assert resolver.load("EchoSourceConnector", PluginKind.SOURCE) is EchoSourceConnector
    assert resolver.load("EchoSource", PluginKind.SOURCE) is EchoSourceConnector


def test_a_class_of_another_kind_is_rejected() -> None:
    with pytest.raises(InvalidPluginError, match="is not a SourceConnector; it is a Transformation"):
        resolver_of().load(f"{SAMPLES}:RenameTopic", PluginKind.SOURCE)


def test_a_class_that_is_no_plugin_is_rejected() -> None:
    with pytest.raises(InvalidPluginError, match="is not a Conveyor plugin class"):
        resolver_of().load(f"{SAMPLES}:NotAPlugin")
    assert NotAPlugin


def test_an_unknown_name_lists_the_closest_known_names() -> None:
    with pytest.raises(PluginNotFoundError) as raised:
        resolver_of(EchoSourceConnector, RenameTopic).load("EchoSourceConector", PluginKind.SOURCE)
    assert "EchoSourceConnector" in raised.value.suggestions
    assert "which name matches EchoSourceConector" in str(raised.value)
    assert "the closest known names are: EchoSourceConnector" in str(raised.value)


def test_suggestions_only_name_plugins_of_the_kind_asked_for() -> None:
    with pytest.raises(PluginNotFoundError) as raised:
        resolver_of(EchoSourceConnector, RenameTopic).load("RenameTopik", PluginKind.SOURCE)
    assert raised.value.suggestions == []


def test_an_alias_claimed_by_two_classes_is_ambiguous_and_not_resolved() -> None:
    class RenameTopicCopy(RenameTopic):
        pass

    RenameTopicCopy.__qualname__ = "RenameTopic"
    with pytest.raises(PluginNotFoundError):
        resolver_of(RenameTopic, RenameTopicCopy).load("RenameTopic")
    assert resolver_of(RenameTopic, RenameTopicCopy).load(f"{SAMPLES}:RenameTopic") is RenameTopic


def test_plugin_descriptions_carry_the_plugins_version_and_kind() -> None:
    assert resolver_of(EchoSourceConnector, RenameTopic).list() == [
        PluginDesc(f"{SAMPLES}.EchoSourceConnector", PluginKind.SOURCE, "2.5"),
        PluginDesc(f"{SAMPLES}.RenameTopic", PluginKind.TRANSFORMATION, "undefined"),
    ]


def test_listing_one_kind_leaves_out_the_others() -> None:
    listed = resolver_of(EchoSourceConnector, RenameTopic).list(PluginKind.TRANSFORMATION)
    assert [d.class_name for d in listed] == [f"{SAMPLES}.RenameTopic"]


def test_the_rest_form_omits_an_undefined_version() -> None:
    assert PluginDesc("a.B", PluginKind.PREDICATE).to_json() == {"class": "a.B", "type": "predicate"}
    assert PluginDesc("a.C", PluginKind.SINK, "1.0").to_json() == {
        "class": "a.C",
        "type": "sink",
        "version": "1.0",
    }


def test_entry_points_of_installed_distributions_are_discovered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_distribution(
        tmp_path,
        f"[conveyor.connectors]\necho = {SAMPLES}:EchoSourceConnector\n"
        f"[conveyor.transforms]\nrename = {SAMPLES}:RenameTopic\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    resolver = PluginResolver()
    assert resolver.load("echo", PluginKind.SOURCE) is EchoSourceConnector
    assert resolver.load("rename", PluginKind.TRANSFORMATION) is RenameTopic
    assert PluginDesc(f"{SAMPLES}.EchoSourceConnector", PluginKind.SOURCE, "2.5") in resolver.list()


def test_an_entry_point_of_the_wrong_kind_for_its_group_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_distribution(tmp_path, f"[conveyor.converters]\nrename = {SAMPLES}:RenameTopic\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginNotFoundError):
        PluginResolver().load("rename")


def test_an_entry_point_that_fails_to_import_does_not_hide_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_distribution(
        tmp_path,
        f"[conveyor.connectors]\nbroken = no_such_module:Thing\necho = {SAMPLES}:EchoSourceConnector\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert PluginResolver().load("echo") is EchoSourceConnector


def test_built_in_connectors_resolve_by_their_java_name_and_aliases(monkeypatch: pytest.MonkeyPatch) -> None:
    java_name = "org.apache.kafka.connect.file.FileStreamSourceConnector"
    monkeypatch.setitem(BUILTIN_CONNECTORS, java_name, f"{SAMPLES}:EchoSourceConnector")
    resolver = PluginResolver()
    for name in (java_name, "FileStreamSourceConnector", "FileStreamSource"):
        assert resolver.load(name, PluginKind.SOURCE) is EchoSourceConnector
    assert PluginDesc(java_name, PluginKind.SOURCE, "2.5") in resolver.list(PluginKind.SOURCE)


@pytest.mark.usefixtures("clean_plugin_path")
def test_class_config_values_resolve_through_the_plugin_resolver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_distribution(tmp_path, "[conveyor.plugin_packages]\nsamples = plugins\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh_plugins()
    definition = ConfigDef().define("transform", ConfigType.CLASS)
    assert definition.parse({"transform": f"{SAMPLES}.RenameTopic"}) == {"transform": RenameTopic}
    with pytest.raises(ConfigError, match=r"Class NoSuchConverter could not be found\."):
        definition.parse({"transform": "NoSuchConverter"})
