"""Fixtures of the Spark data source tests: one shared SparkSession, a fresh log per test."""

from __future__ import annotations

import itertools

import pytest
from pyspark.sql import SparkSession

from conveyor.log import Log
from conveyor.spark.datasource import register
from conveyor.spark.session import get_or_create_session

_topic_numbers = itertools.count()


@pytest.fixture(scope="session")
def spark() -> SparkSession:
    """The process's SparkSession with the conveyor source registered (never stopped here)."""
    session = get_or_create_session()
    register(session)
    return session


@pytest.fixture
def topic(log: Log) -> str:
    """A fresh topic with three partitions."""
    name = f"events-{next(_topic_numbers)}"
    log.admin().create_topic(name, partitions=3)
    return name
