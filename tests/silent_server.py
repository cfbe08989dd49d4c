"""A server that takes connections and never says a word: a provider (an SMTP server, an HTTP
proxy, an API) that hangs. Faked at the network boundary, so the real clients meet it."""

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """Its port; every connection stays open and silent until the block ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                held.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        for connection in held:
            connection.close()


def ends_within(seconds: float, work: Callable[[], object]) -> BaseException | None:
    """Runs `work` in a thread; fails unless it ends within `seconds`. Its error, if any."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as error:
            raised.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return raised[0] if raised else None
