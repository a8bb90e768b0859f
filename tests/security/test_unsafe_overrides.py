"""How a worker's `connector.client.config.override.allowed.*` settings let unsafe client settings
through: files by directory, URLs by key and URL together, anything else by key."""

from __future__ import annotations

from pathlib import Path

from conveyor.settings.unsafe_overrides import UnsafeOverrides

TOKEN_URL = "https://login.example.com/token"


def test_a_file_under_an_allowed_directory_needs_no_listed_key(tmp_path: Path) -> None:
    rules = UnsafeOverrides.of([], [str(tmp_path)], [])
    assert rules.refusal("ssl.ca.location", str(tmp_path / "ca.pem")) is None
    assert rules.refusal("ssl.ca.location", "/etc/passwd") is not None


def test_a_listed_file_key_takes_any_file_only_while_no_directory_is_allowed(tmp_path: Path) -> None:
    assert UnsafeOverrides.of(["ssl.ca.location"], [], []).refusal("ssl.ca.location", "/etc/passwd") is None
    bound = UnsafeOverrides.of(["ssl.ca.location"], [str(tmp_path)], [])
    assert bound.refusal("ssl.ca.location", "/etc/passwd") is not None


def test_a_file_name_that_cannot_be_resolved_is_refused_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    rules = UnsafeOverrides.of([], [str(tmp_path)], [])
    assert rules.refusal("ssl.ca.location", str(tmp_path / "loop")) is not None
    assert rules.refusal("ssl.ca.location", f"{tmp_path}/a\x00b") is not None


def test_a_url_needs_its_key_and_itself_listed() -> None:
    key = "sasl.oauthbearer.token.endpoint.url"
    assert UnsafeOverrides.of([key], [], [TOKEN_URL]).refusal(key, TOKEN_URL) is None
    assert UnsafeOverrides.of([], [], [TOKEN_URL]).refusal(key, TOKEN_URL) is not None
    assert UnsafeOverrides.of([key], [], []).refusal(key, TOKEN_URL) is not None


def test_a_listed_key_counts_in_any_spelling() -> None:
    rules = UnsafeOverrides.of(["PLUGIN_LIBRARY_PATHS"], [], [])
    assert rules.refusal("plugin.library.paths", "/opt/lib.so") is None


def test_a_log_url_is_refused_for_the_first_unsafe_setting_of_any_client_it_carries() -> None:
    rules = UnsafeOverrides()
    refusal = rules.log_url_refusal("kafka://h:9092?linger.ms=5&admin.plugin.library.paths=/x.so")
    assert refusal is not None and "plugin.library.paths" in refusal
    assert rules.log_url_refusal("kafka://h:9092?linger.ms=5") is None
    assert rules.log_url_refusal("embedded:/data/log") is None
