"""How `engram serve` stops: SIGTERM and SIGINT become an exception, so clean-up runs."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


class _Stopped(Exception):
    """SIGTERM or SIGINT asked `engram serve` to stop."""


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Turn SIGTERM and SIGINT into `_Stopped`, so the caller's clean-up runs.

    uvicorn captures both while it serves, shuts down gracefully, then raises the captured signal
    again: with the default SIGTERM disposition that would end the process before the local
    Neo4j is stopped.
    """

    def stop(signum: int, frame: object) -> None:
        raise _Stopped(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    except _Stopped:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
