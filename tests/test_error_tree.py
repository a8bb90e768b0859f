"""Every error Conveyor raises on purpose is a ConnectError; a bad setting is a ConfigError wherever read."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import conveyor
from conveyor import api, data, log
from conveyor.errors import AlreadyExistsError, ConfigError, ConnectError, NotFoundError
from conveyor.log import open_log
from conveyor.pipeline.error_handling import ErrorPolicy
from conveyor.rest.listeners import parse_listeners
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.datasource.options import parse_read_options


def _conveyor_exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(conveyor.__path__, "conveyor."):
        if module_info.name.endswith(".__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__.startswith("conveyor.")
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return sorted(found.values(), key=lambda klass: f"{klass.__module__}.{klass.__qualname__}")


@pytest.mark.parametrize("error_class", _conveyor_exception_classes(), ids=lambda klass: klass.__qualname__)
def test_every_error_class_of_conveyor_descends_from_connect_error(error_class: type[BaseException]) -> None:
    assert issubclass(error_class, ConnectError)


def test_the_shared_kinds_keep_their_public_names_in_api_and_data() -> None:
    assert api.ConnectError is data.ConnectError is ConnectError
    assert (api.ConfigError, api.NotFoundError, api.AlreadyExistsError) == (
        ConfigError,
        NotFoundError,
        AlreadyExistsError,
    )


def test_the_log_and_the_api_share_one_topic_partition_and_one_record_metadata() -> None:
    assert api.TopicPartition is log.TopicPartition
    assert api.RecordMetadata is log.RecordMetadata


BAD_SETTINGS: dict[str, Callable[[Path], Any]] = {
    "worker property": lambda _: WorkerConfig.from_props({"offset.flush.interval.ms": "soon"}),
    "worker listeners": lambda _: parse_listeners("ftp://localhost:8443"),
    "log URL": lambda _: open_log("nowhere:/tmp"),
    "topic setting": lambda tmp: (
        open_log(f"embedded:{tmp}").admin().create_topic("t", config={"cleanup.policy": "sometimes"})
    ),
    "connector errors.tolerance": lambda _: ErrorPolicy.from_connector_config({"errors.tolerance": "some"}),
    "Spark data source option": lambda _: parse_read_options({"subscribe": "t"}, streaming=True),
}


@pytest.mark.parametrize("read", BAD_SETTINGS.values(), ids=list(BAD_SETTINGS))
def test_a_bad_setting_is_a_config_error_whichever_package_reads_it(
    read: Callable[[Path], Any], tmp_path: Path
) -> None:
    with pytest.raises(ConfigError):
        read(tmp_path)
