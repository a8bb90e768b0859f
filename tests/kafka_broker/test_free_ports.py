"""Choosing local ports for a broker's listeners."""

from __future__ import annotations

import socket

from conveyor.kafka_broker.jvm import free_ports


def test_ports_chosen_together_are_distinct() -> None:
    ports = free_ports(64)

    assert len(set(ports)) == 64


def test_a_chosen_port_can_be_listened_on() -> None:
    (port,) = free_ports(1)

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
