"""Kafka Connect's metric groups, what task loops measure, and what a worker publishes."""
