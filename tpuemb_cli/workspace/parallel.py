"""Work on several CPUs: split among forked copies of this process (``check``'s files, the two
sides of a large pair ``diff`` compares).

Forked, not spawned: a fork starts with everything this process has imported and warmed (rule
modules, parser caches, settings), in about a millisecond, where a spawned worker would pay the
whole start-up again -- more than linting a hundred small files costs. Each worker runs
``function`` over a contiguous share of the items and sends the pickled results back through a
pipe; this process does the first share itself. A worker that fails in any way (killed, out of
memory, a result that does not pickle) costs only time: its share is run again here, so a run in
parallel gives exactly what a run in one process gives, in the same order.

Where there is no ``os.fork`` (Windows), or one CPU, everything runs here.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tpuemb_cli.model.signals import Signalled, signals_raise

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this many items per extra worker, a fork and the pickling cost more than they save.
MIN_ITEMS_PER_WORKER = 40
_WORKER_FAILED = 70


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether a forked copy of this process can take a share of the work now: there is
    ``os.fork`` and another CPU, and no other thread runs here (a fork copies the calling thread
    only: a lock another thread held would stay locked in the copy)."""
    if not hasattr(os, "fork") or available_cpus() < 2:
        return False
    return threading.active_count() == 1


def workers_for(count: int, jobs: int) -> int:
    """How many processes to use for ``count`` items: ``jobs`` (0: one per available CPU), fewer
    when the items are too few to pay for a worker, one where processes cannot fork."""
    if not hasattr(os, "fork"):
        return 1
    wanted = jobs if jobs > 0 else available_cpus()
    return max(1, min(wanted, count // MIN_ITEMS_PER_WORKER))


def map_in_workers(
    function: Callable[[Item], Result], items: Sequence[Item], workers: int
) -> list[Result]:
    """``[function(item) for item in items]``, computed by ``workers`` processes. No worker
    outlives the call, whichever way it ends: an exception here, Ctrl-C (SIGINT) or SIGTERM /
    SIGHUP while this process waits for a worker kill and reap every worker not yet collected,
    so that none goes on loading orphaned, holding the caller's stdout and stderr open."""
    if workers <= 1 or len(items) < 2:
        return [function(item) for item in items]
    bounds = [len(items) * index // workers for index in range(workers + 1)]
    shares = [items[bounds[index] : bounds[index + 1]] for index in range(workers)]
    pending: dict[int, int] = {}  # each worker not yet reaped -> the pipe it writes to
    with _signals_end_workers():
        try:
            for share in shares[1:]:
                pid, reader = _fork(function, share)
                pending[pid] = reader
            results = [function(item) for item in shares[0]]
            for (pid, reader), share in zip(list(pending.items()), shares[1:], strict=True):
                received = _collect(pid, reader, pending)
                results.extend(received if received is not None else [function(i) for i in share])
        except BaseException:
            # This process goes on (a crash in tpuemb is a finding) or ends (interrupted): no
            # worker is left blocked on a pipe nobody reads, running on, or unreaped.
            for pid, reader in list(pending.items()):
                _abandon(pid, reader)
            raise
    return results


class _Ended(Signalled):
    """SIGTERM or SIGHUP while workers run."""


_ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _signals_end_workers() -> contextlib.AbstractContextManager[None]:
    """SIGTERM and SIGHUP in the block raise ``_Ended``, so the workers are ended as for an
    exception; then the process ends as the signal says (as for Ctrl-C if its old handler did
    not end it). SIGINT needs nothing: Python raises KeyboardInterrupt for it. The workers
    inherit the handler: a SIGTERM sent to the whole group ends each one through its
    ``os._exit``."""
    return signals_raise(_ENDING, _Ended, KeyboardInterrupt)


def _fork(function: Callable[[Item], Result], share: Sequence[Item]) -> tuple[int, int]:
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: never returns, never runs the parent's exit code or handlers
        status = _WORKER_FAILED
        try:
            os.close(reader)
            payload = pickle.dumps([function(item) for item in share], pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as stream:
                stream.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    return pid, reader


def _abandon(pid: int, reader: int) -> None:
    """Ends the worker ``pid`` and reaps it. Each step may have been done already when an
    interruption came in the middle of collecting it."""
    if reader >= 0:
        with contextlib.suppress(OSError):
            os.close(reader)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)  # not reaped yet, so the pid is still this worker's
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _collect(pid: int, reader: int, pending: dict[int, int]) -> list[Any] | None:
    """A worker's results, or None if it did not deliver them; ``pending`` forgets it once it
    is reaped."""
    stream = os.fdopen(reader, "rb", closefd=False)
    try:
        payload = stream.read()
    finally:
        os.close(reader)
        pending[pid] = -1  # closed: nothing to close again
    _, status = os.waitpid(pid, 0)
    del pending[pid]
    if status != 0:
        return None
    try:
        results: list[Any] = pickle.loads(payload)
    except Exception:  # a truncated payload: the share is run again here
        return None
    return results
