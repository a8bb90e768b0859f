"""Kafka Connect's `listeners` syntax, as `RestServer` reads it."""

from __future__ import annotations

import pytest

from conveyor.errors import ConfigError
from conveyor.rest.listeners import Listener, parse_listeners


def test_a_listener_names_protocol_host_and_port() -> None:
    assert parse_listeners("http://127.0.0.1:8083") == [Listener("http", "127.0.0.1", 8083)]


def test_an_empty_host_means_every_interface() -> None:
    assert parse_listeners("http://:8083") == [Listener("http", "", 8083)]


def test_listeners_are_comma_separated_and_may_carry_spaces() -> None:
    assert parse_listeners("http://localhost:0, http://[::1]:9000") == [
        Listener("http", "localhost", 0),
        Listener("http", "::1", 9000),
    ]


def test_https_is_refused_until_conveyor_serves_tls() -> None:
    with pytest.raises(ConfigError, match="'https' is not supported"):
        parse_listeners("https://localhost:8443")


def test_a_listener_without_a_port_is_refused() -> None:
    with pytest.raises(ConfigError, match="has no port"):
        parse_listeners("http://localhost")


def test_a_listener_with_a_path_is_refused() -> None:
    with pytest.raises(ConfigError, match="protocol://host:port only"):
        parse_listeners("http://localhost:8083/api")


def test_an_empty_listeners_setting_is_refused() -> None:
    with pytest.raises(ConfigError, match="No listeners"):
        parse_listeners(" , ")
