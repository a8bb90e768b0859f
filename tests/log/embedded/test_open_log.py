"""Opening logs by URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.log import InvalidLogUrlError, open_log


def test_embedded_url_opens_a_log_in_that_directory(tmp_path: Path) -> None:
    with open_log(f"embedded:{tmp_path / 'here'}") as log:
        log.admin().create_topic("t")
    with open_log(f"embedded://{tmp_path / 'here'}?sync=full") as reopened:
        assert reopened.admin().list_topics() == ["t"]


@pytest.mark.parametrize(
    "url",
    ["no-scheme", "embedded:", "ftp://x", "embedded:/tmp/x?sync=sometimes", "embedded:/tmp/x?color=red"],
)
def test_malformed_urls_are_refused_naming_the_url(url: str) -> None:
    with pytest.raises(InvalidLogUrlError, match="Log URL"):
        open_log(url)
