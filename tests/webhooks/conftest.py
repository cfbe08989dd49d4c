import pytest

from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver():
    """A receiver on 127.0.0.1, closed after the test."""
    receivers = []

    def make(**options) -> Receiver:
        receivers.append(Receiver(**options))
        return receivers[-1]

    yield make
    for each in receivers:
        each.close()
