"""Every log record stays one line: user values (connector names, paths) have their control characters
escaped by the worker's log handler."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from conveyor.cli.logging_setup import configure_logging
from conveyor.log_lines import EscapeControlCharacters, escape_control_characters
from conveyor.runtime.task_spec import TaskId

FORGED = "lines\n[2026-01-01 00:00:00,000] ERROR forged"


def test_control_characters_are_escaped_and_other_text_kept() -> None:
    assert escape_control_characters("a\nb\r\tc\x1b[31m\u2028é") == "a\\nb\\r\\tc\\u001b[31m\\u2028é"


def _formatted(message: str, *args: object) -> str:
    record = logging.LogRecord("conveyor.test", logging.INFO, __file__, 1, message, args, None)
    EscapeControlCharacters().filter(record)
    return record.getMessage()


def test_a_connector_name_logged_as_an_argument_stays_on_one_line() -> None:
    assert (
        _formatted("Connector %s started", FORGED) == "Connector " + FORGED.replace("\n", "\\n") + " started"
    )


def test_an_object_whose_text_holds_a_user_value_is_escaped_too() -> None:
    assert "\n" not in _formatted("Task %s failed after %d attempts", TaskId(FORGED, 0), 3)


@pytest.fixture
def restored_logging() -> Iterator[None]:
    """Puts the root logger's handlers and level back after a test that configures logging."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def test_the_worker_log_handler_escapes_every_records_arguments(
    restored_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("INFO", json_lines=False)
    logging.getLogger("conveyor.herder.standalone").info("Deleting connector %s", FORGED)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert "ERROR forged" in lines[0]
