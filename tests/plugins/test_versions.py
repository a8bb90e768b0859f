"""Reading ``*.plugin.version`` values as Kafka reads them (Maven version ranges, KIP-891)."""

from __future__ import annotations

import pytest

from conveyor.plugins.versions import InvalidVersionRequirement, PluginVersion, highest, version_requirement


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("1.0", "1.5"),
        ("1.9", "1.10"),
        ("1.0-beta", "1.0"),
        ("1.0", "1.0.1"),
        ("2", "10"),
        ("1.0-alpha", "1.0-beta"),
    ],
)
def test_versions_are_ordered_as_maven_orders_them(lower: str, higher: str) -> None:
    assert PluginVersion(lower) < PluginVersion(higher)


def test_trailing_zeros_do_not_make_another_version() -> None:
    assert PluginVersion("1.0") == PluginVersion("1")


def test_a_plain_version_accepts_only_that_version() -> None:
    requirement = version_requirement("1.5")
    assert requirement is not None
    assert [v for v in ("1.0", "1.5", "2.0") if requirement.accepts(v)] == ["1.5"]


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("[1.0,2.0)", ["1.0", "1.5"]),
        ("(1.0,2.0]", ["1.5", "2.0"]),
        ("[1.5,)", ["1.5", "2.0"]),
        ("(,1.5]", ["1.0", "1.5"]),
        ("[2.0]", ["2.0"]),
        ("[1.0,1.0],[2.0,)", ["1.0", "2.0"]),
    ],
)
def test_a_range_accepts_the_versions_within_its_bounds(text: str, accepted: list[str]) -> None:
    requirement = version_requirement(text)
    assert requirement is not None
    assert [v for v in ("1.0", "1.5", "2.0") if requirement.accepts(v)] == accepted


@pytest.mark.parametrize("value", [None, "", "latest"])
def test_no_value_or_latest_asks_for_the_highest_installed_version(value: str | None) -> None:
    assert version_requirement(value) is None
    assert highest(["1.10", "1.9", "1.0"]) == "1.10"


@pytest.mark.parametrize("value", ["[1.0", "1.0,2.0", "[2.0,1.0]", "(1.0)", "[1.0,2.0,3.0]"])
def test_a_value_that_is_neither_a_version_nor_a_range_is_refused(value: str) -> None:
    with pytest.raises(InvalidVersionRequirement):
        version_requirement(value)
