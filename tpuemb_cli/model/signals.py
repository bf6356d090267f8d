"""Signals turned into an exception for the length of a block, so that the code in it cleans up
(a temporary file removed, forked workers ended) before the process ends as the signal says."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType


class Signalled(BaseException):
    """A signal arrived in the block (a BaseException, like KeyboardInterrupt: cleanup code that
    catches only errors must not swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def signals_raise(
    signums: Sequence[int], raised: type[Signalled], otherwise: Callable[[], BaseException]
) -> Iterator[None]:
    """Turns the first of ``signums`` in the block into ``raised``, which unwinds it; then
    delivers that signal again with the handler that was there before (the process ends as it
    would have, e.g. with 128+15 for SIGTERM) and, if that handler returns, raises
    ``otherwise()``. A signal ignored before stays ignored; later signals wait for the cleanup.
    Off the main thread (which alone can set handlers and receives signals) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def arrived(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)
        if len(caught) == 1:
            raise raised(signum)

    previous = {}
    for signum in signums:
        handler = signal.getsignal(signum)
        if handler is not signal.SIG_IGN and handler is not None:
            previous[signum] = signal.signal(signum, arrived)
    try:
        yield
    except raised:
        pass
    finally:
        caught.append(0)  # nothing is raised from here on
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if caught[0]:
        signal.raise_signal(caught[0])
        raise otherwise()
