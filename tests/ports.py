"""Ports for the servers tests start: several suites run side by side on one machine."""

import socket


def free_port() -> int:
    """A port nobody listens on now, chosen by the OS."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
