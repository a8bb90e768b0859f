"""Config providers resolve `${provider:path:key}` variables as Kafka's FileConfigProvider,
DirectoryConfigProvider (KIP-632) and EnvVarConfigProvider (KIP-887) do."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.api import ConfigError
from conveyor.settings.config_providers import ConfigProviders, EnvVarConfigProvider, reverse_transform

KAFKA = "org.apache.kafka.common.config.provider."


def providers(**props: str) -> ConfigProviders:
    return ConfigProviders.from_worker_props({k.replace("__", "."): v for k, v in props.items()})


def file_providers() -> ConfigProviders:
    return providers(config__providers="file", config__providers__file__class=f"{KAFKA}FileConfigProvider")


def test_file_provider_reads_a_key_of_a_properties_file(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("password=s3cret\nuser=alice\n")
    resolved = file_providers().transform({"db.password": f"${{file:{secrets}:password}}", "topic": "t"})
    assert resolved == {"db.password": "s3cret", "topic": "t"}


def test_a_variable_can_sit_inside_a_longer_value(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("user=alice\n")
    resolved = file_providers().transform({"url": f"db://${{file:{secrets}:user}}@host"})
    assert resolved == {"url": "db://alice@host"}


def test_an_unknown_key_or_provider_leaves_the_variable_as_written(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("user=alice\n")
    config = {"a": f"${{file:{secrets}:missing}}", "b": "${vault:path:key}"}
    assert file_providers().transform(config) == config


def test_file_provider_outside_its_allowed_paths_resolves_nothing(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("user=alice\n")
    limited = providers(
        config__providers="file",
        config__providers__file__class=f"{KAFKA}FileConfigProvider",
        config__providers__file__param__allowed__paths=str(tmp_path / "elsewhere"),
    )
    config = {"a": f"${{file:{secrets}:user}}"}
    assert limited.transform(config) == config


def test_an_unreadable_file_raises_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Could not read properties from file"):
        file_providers().transform({"a": f"${{file:{tmp_path / 'absent'}:user}}"})


def test_directory_provider_gives_a_files_whole_content(tmp_path: Path) -> None:
    (tmp_path / "api.token").write_text("t0k3n")
    dirs = providers(config__providers="dir", config__providers__dir__class=f"{KAFKA}DirectoryConfigProvider")
    assert dirs.transform({"api.token": f"${{dir:{tmp_path}:api.token}}"}) == {"api.token": "t0k3n"}


def test_env_provider_reads_a_variable_with_or_without_the_empty_path() -> None:
    provider = EnvVarConfigProvider({"DB_PASSWORD": "s3cret"})
    resolved = ConfigProviders({"env": provider}).transform(
        {"a": "${env::DB_PASSWORD}", "b": "${env:DB_PASSWORD}"}
    )
    assert resolved == {"a": "s3cret", "b": "s3cret"}


def test_env_provider_serves_only_variables_its_allowlist_pattern_matches() -> None:
    provider = EnvVarConfigProvider({"DB_PASSWORD": "s3cret", "HOME": "/root"})
    provider.configure({"allowlist.pattern": "DB_.*"})
    assert provider.get("").data == {"DB_PASSWORD": "s3cret"}


def test_env_provider_refuses_a_path() -> None:
    with pytest.raises(ConfigError, match="Path is not supported for EnvVarConfigProvider"):
        EnvVarConfigProvider({}).get("/etc")


def test_providers_are_found_by_kafka_class_name_or_python_path() -> None:
    built = providers(
        config__providers="env,custom",
        config__providers__env__class=f"{KAFKA}EnvVarConfigProvider",
        config__providers__custom__class="tests.worker.connectors:UpperCaseProvider",
        config__providers__custom__param__suffix="!",
    )
    assert built.transform({"a": "${custom:any:word}"}) == {"a": "WORD!"}


def test_a_provider_class_outside_the_plugin_packages_is_refused_naming_the_key() -> None:
    with pytest.raises(ConfigError, match="is not in a plugin package") as raised:
        providers(config__providers="x", config__providers__x__class="subprocess:Popen")
    assert raised.value.name == "config.providers.x.class"


def test_an_unknown_provider_class_raises_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as raised:
        providers(config__providers="x", config__providers__x__class="no.such.Provider")
    assert raised.value.name == "config.providers.x.class"


def test_reverse_transform_puts_variables_back_where_a_task_config_copied_a_secret() -> None:
    raw = {"password": "${file:/s.properties:password}", "topic": "t"}
    task_config = {"password": "s3cret", "topic": "t", "task.class": "x:Task"}
    assert reverse_transform(task_config, raw) == {
        "password": "${file:/s.properties:password}",
        "topic": "t",
        "task.class": "x:Task",
    }
