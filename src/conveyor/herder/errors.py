"""Herder errors, each mapped by the REST API onto Kafka Connect's status code."""

from __future__ import annotations


class HerderError(Exception):
    """A request the herder refused; `status` is the REST status code Kafka Connect answers with."""

    status = 500


class BadRequestError(HerderError):
    status = 400


class NotFoundError(HerderError):
    status = 404


class AlreadyExistsError(HerderError):
    status = 409


class ConflictError(HerderError):
    """The request cannot complete now (a rebalance, a concurrent change, a failed fencing)."""

    status = 409


class ForbiddenError(HerderError):
    status = 403


class NotReadyError(HerderError):
    status = 503
