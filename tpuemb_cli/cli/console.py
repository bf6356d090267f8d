"""The `tpuemb` console script and `python -m tpuemb_cli`: `cli.main.main` in a short-lived process.
Both come here through ``tpuemb_cli/__main__.py``, which turns the garbage collector off before
the ``cli`` package (and click with it) is imported; the ``gc.disable()`` below covers callers of
``run`` itself.

Two things that cost a one-file run much of its time, which a process that exits right after does
not need (tests and the Python API call ``cli.main`` and the library, and keep both; the
benchmark's start-up ratio measures what is left):

- the cyclic garbage collector, which ran again and again over the tens of thousands of objects
  that importing click, protobuf and the rules creates, none of them garbage. tpuemb's own data
  (tuples, lists, dicts, protobuf messages) holds no reference cycles, so without the collector
  memory stays the same;
- tearing the interpreter down at exit (freeing every module, protobuf's descriptor pools and
  message classes). Every file tpuemb writes -- reports, fixes -- is closed and
  renamed before ``main`` returns and tpuemb registers no exit handlers, so only the standard
  streams need flushing before ``os._exit``.
"""

from __future__ import annotations

import gc

gc.disable()

import contextlib  # noqa: E402 -- after gc.disable(), which must come before the imports
import os  # noqa: E402 -- after gc.disable(), which must come before the imports
import sys  # noqa: E402

from tpuemb_cli.cli.common import EXIT_ERROR  # noqa: E402
from tpuemb_cli.cli.main import main  # noqa: E402


def run() -> None:
    try:
        main(prog_name="tpuemb")
        code = 0
    except SystemExit as done:
        code = exit_code(done.code)
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        code = EXIT_ERROR  # the report did not reach its reader
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def exit_code(code: object) -> int:
    """The status ``sys.exit(code)`` would have given the process."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
