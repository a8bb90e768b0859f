"""The exit codes of `conveyor`'s operator commands, so that scripts can tell outcomes apart.

Documented in docs/cli.md; a code never changes meaning.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    """The command did what it was asked."""
    ERROR = 1
    """An unexpected error, or a bad local file (a connector config that cannot be read)."""
    USAGE = 2
    """The command line was wrong (unknown option, missing argument)."""
    UNREACHABLE = 3
    """The worker's REST API could not be reached (refused, timed out, bad URL)."""
    NOT_FOUND = 4
    """The worker answered 404: no such connector, task or plugin."""
    CONFLICT = 5
    """The worker answered 409: the connector exists already, or a rebalance is under way."""
    BAD_REQUEST = 6
    """The worker refused the request as invalid (400, 403, 405): e.g. an invalid connector config, or
    offsets reset on a connector that is not stopped."""
    WORKER_ERROR = 7
    """The worker failed (500) or is not ready (503, still starting)."""
    FAILED = 8
    """`status`: a connector or one of its tasks is FAILED."""
    DRIFT = 9
    """`apply --check`: the cluster differs from the connector files."""


def for_http_status(status: int) -> ExitCode:
    """The exit code of a command the worker answered with an error status."""
    if status == 404:
        return ExitCode.NOT_FOUND
    if status == 409:
        return ExitCode.CONFLICT
    if 400 <= status < 500:
        return ExitCode.BAD_REQUEST
    return ExitCode.WORKER_ERROR
