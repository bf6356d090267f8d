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

import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

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
    import threading

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
    """``[function(item) for item in items]``, computed by ``workers`` processes."""
    if workers <= 1 or len(items) < 2:
        return [function(item) for item in items]
    bounds = [len(items) * index // workers for index in range(workers + 1)]
    shares = [items[bounds[index] : bounds[index + 1]] for index in range(workers)]
    children = [_fork(function, share) for share in shares[1:]]
    try:
        results = [function(item) for item in shares[0]]
    except BaseException:
        # This process goes on (a crash in tpuemb is a finding): no worker is left blocked on a
        # pipe nobody reads, nor unreaped.
        for pid, reader in children:
            _abandon(pid, reader)
        raise
    for (pid, reader), share in zip(children, shares[1:], strict=True):
        received = _collect(pid, reader)
        results.extend(received if received is not None else [function(i) for i in share])
    return results


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
    os.close(reader)
    os.kill(pid, signal.SIGKILL)  # not reaped yet, so the pid is still this worker's
    os.waitpid(pid, 0)


def _collect(pid: int, reader: int) -> list[Any] | None:
    """A worker's results, or None if it did not deliver them."""
    with os.fdopen(reader, "rb") as stream:
        payload = stream.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    try:
        results: list[Any] = pickle.loads(payload)
    except Exception:  # a truncated payload: the share is run again here
        return None
    return results
