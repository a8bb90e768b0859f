"""The file and directory providers never read outside `allowed.paths`: not through a symlink, a hard
link, `..` or a symlinked directory, while links that stay inside (a mounted Kubernetes secret) still work."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.settings.config_providers import DirectoryConfigProvider, FileConfigProvider

SECRET = "outside-secret"


@dataclass(frozen=True)
class Farm:
    """An allowed directory with a file inside, and links in it to a secret file and directory outside."""

    allowed: Path
    outside: Path


@pytest.fixture
def farm(tmp_path: Path) -> Farm:
    allowed = tmp_path / "allowed"
    outside = tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (outside / "secret").write_text(f"key={SECRET}\n")
    (allowed / "inside").write_text("key=inside-value\n")
    (allowed / "symlink").symlink_to(outside / "secret")
    os.link(outside / "secret", allowed / "hardlink")
    (allowed / "subdir").symlink_to(outside, target_is_directory=True)
    return Farm(allowed, outside)


def file_provider(farm: Farm) -> FileConfigProvider:
    provider = FileConfigProvider()
    provider.configure({"allowed.paths": str(farm.allowed)})
    return provider


def directory_provider(farm: Farm) -> DirectoryConfigProvider:
    provider = DirectoryConfigProvider()
    provider.configure({"allowed.paths": str(farm.allowed)})
    return provider


def test_file_provider_reads_a_file_inside_its_allowed_paths(farm: Farm) -> None:
    assert file_provider(farm).get(str(farm.allowed / "inside"), {"key"}).data == {"key": "inside-value"}


def test_file_provider_does_not_follow_a_symlink_out_of_its_allowed_paths(farm: Farm) -> None:
    assert file_provider(farm).get(str(farm.allowed / "symlink"), {"key"}).data == {}


def test_file_provider_refuses_a_hard_link_to_a_file_outside(farm: Farm) -> None:
    assert file_provider(farm).get(str(farm.allowed / "hardlink"), {"key"}).data == {}


def test_file_provider_refuses_dot_dot_out_of_its_allowed_paths(farm: Farm) -> None:
    assert file_provider(farm).get(f"{farm.allowed}/../outside/secret", {"key"}).data == {}


def test_file_provider_refuses_a_file_under_a_symlinked_directory(farm: Farm) -> None:
    assert file_provider(farm).get(str(farm.allowed / "subdir" / "secret"), {"key"}).data == {}


def test_file_provider_follows_a_symlink_that_stays_inside(farm: Farm) -> None:
    (farm.allowed / "alias").symlink_to(farm.allowed / "inside")
    assert file_provider(farm).get(str(farm.allowed / "alias"), {"key"}).data == {"key": "inside-value"}


def test_directory_provider_reads_a_file_inside_its_allowed_paths(farm: Farm) -> None:
    assert directory_provider(farm).get(str(farm.allowed), {"inside"}).data == {
        "inside": "key=inside-value\n"
    }


def test_directory_provider_does_not_follow_a_symlink_out_of_its_allowed_paths(farm: Farm) -> None:
    assert directory_provider(farm).get(str(farm.allowed), {"symlink"}).data == {}


def test_directory_provider_refuses_a_hard_link_to_a_file_outside(farm: Farm) -> None:
    assert directory_provider(farm).get(str(farm.allowed), {"hardlink"}).data == {}


def test_directory_provider_refuses_dot_dot_in_the_key_or_the_directory(farm: Farm) -> None:
    assert directory_provider(farm).get(str(farm.allowed), {"../outside/secret"}).data == {}
    assert directory_provider(farm).get(f"{farm.allowed}/../outside", {"secret"}).data == {}


def test_directory_provider_refuses_a_symlinked_subdirectory(farm: Farm) -> None:
    assert directory_provider(farm).get(str(farm.allowed / "subdir"), {"secret"}).data == {}


def test_directory_provider_lists_only_the_files_that_stay_inside(farm: Farm) -> None:
    (farm.allowed / "alias").symlink_to(farm.allowed / "inside")
    assert directory_provider(farm).get(str(farm.allowed)).data == {
        "inside": "key=inside-value\n",
        "alias": "key=inside-value\n",
    }


def test_without_allowed_paths_a_hard_linked_file_is_read(farm: Farm) -> None:
    assert FileConfigProvider().get(str(farm.allowed / "hardlink"), {"key"}).data == {"key": SECRET}
