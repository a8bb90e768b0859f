"""Conveyor: the Kafka Connect runtime, rebuilt in Python, with its tasks running on Apache Spark."""

__version__ = "0.1.0"
