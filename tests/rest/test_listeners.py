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


def test_https_listeners_are_parsed_beside_http_ones() -> None:
    assert parse_listeners("http://localhost:8083,https://localhost:8443") == [
        Listener("http", "localhost", 8083),
        Listener("https", "localhost", 8443),
    ]


def test_a_protocol_other_than_http_or_https_is_refused() -> None:
    with pytest.raises(ConfigError, match="'ftp' is not supported"):
        parse_listeners("ftp://localhost:8443")


def test_no_listeners_at_all_may_be_allowed_as_admin_listeners_allow_it() -> None:
    assert parse_listeners("", allow_none=True) == []


def test_a_listener_without_a_port_is_refused() -> None:
    with pytest.raises(ConfigError, match="has no port"):
        parse_listeners("http://localhost")


def test_a_listener_with_a_path_is_refused() -> None:
    with pytest.raises(ConfigError, match="protocol://host:port only"):
        parse_listeners("http://localhost:8083/api")


def test_an_empty_listeners_setting_is_refused() -> None:
    with pytest.raises(ConfigError, match="No listeners"):
        parse_listeners(" , ")
