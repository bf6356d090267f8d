"""A pytest plugin that makes every ``explain --memory`` a memory test runs a check of the sweep
(issue 42: "the sweep's verdict for every chip/slice equals what ``explain --memory --tpu <that
slice>`` says alone, on every example and memory test config").

    pytest -p tests.sweep_check tests/test_explain_memory.py ...

Each ``CliRunner().invoke`` of ``explain --memory`` on one chip or none that succeeds (exit 0 or
1) is run again, on the same files from the same directory, as a sweep of a slice or two of
each kind of verdict (and the test's own chip, if it names one) and as each of those slices
alone; every slice's verdict must be the same. The test that ran it fails if one differs.
``TPUEMB_SWEEP_COUNT``: a file the number of documents compared is appended to (one line a
test process), for the test that runs this plugin (test_memory_sweep) to read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

# A slice or two of each kind of verdict: chips without SparseCores, TensorFlow's refusal of
# TPU7x, one and several chips of the same kind.
SLICES = ("v2", "v3-8", "v5litepod-4", "v6e-1", "v6e-4", "tpu7x", "v5p-8", "v5p-16", "v5p-24")
# What each slice must say the same in both: the summary's verdict and figures.
KEYS = ("status", "unit", "used_bytes", "hbm_bytes", "share", "cannot_run", "mismatch", "not_sized")

_invoke = CliRunner.invoke
_compared = 0


def _without(args: Sequence[str], option: str) -> list[str]:
    """``args`` without ``option`` and its value."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == option:
            skip = True
        elif not arg.startswith(f"{option}="):
            out.append(arg)
    return out


def _tpu(args: Sequence[str]) -> str | None:
    for at, arg in enumerate(args):
        if arg == "--tpu" and at + 1 < len(args):
            return args[at + 1]
        if arg.startswith("--tpu="):
            return arg.split("=", 1)[1]
    return None


def _run(runner: CliRunner, cli: Any, args: list[str], **kwargs: Any) -> tuple[int, Any]:
    """The exit code of ``args --format json`` and its document (a document with errors is
    explained as read, exit 1, its errors said on stderr; None where nothing was explained)."""
    result = _invoke(runner, cli, [*args, "--format", "json"], **kwargs)
    assert result.exit_code in (0, 1), (args, result.output)
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else None


def compare(runner: CliRunner, cli: Any, args: Sequence[str], **kwargs: Any) -> None:
    """The sweep of ``args`` (``explain --memory ...``) over the slices, each slice's verdict
    against the same command with that slice alone; the sweep has errors (exit 1) if and only
    if a slice alone has."""
    global _compared
    own = _tpu(args)
    base = _without(_without(args, "--tpu"), "--format")
    names = list(SLICES)
    if own is not None and own not in names:
        names.append(own)
    code, swept = _run(runner, cli, [*base, "--tpu", ",".join(names)], **kwargs)
    assert swept is not None, (base, names)
    codes = []
    for chip in swept["sweep"]:
        for verdict in chip["slices"]:
            slice_code, alone = _run(
                runner, cli, [*base, "--tpu", verdict["accelerator"]], **kwargs
            )
            assert alone is not None, (base, verdict["accelerator"])
            codes.append(slice_code)
            got = {key: verdict[key] for key in KEYS}
            want = {key: alone["summary"][key] for key in KEYS}
            assert got == want, f"the sweep of {base} says {got} of {verdict['accelerator']}, " + (
                f"the slice alone {want}"
            )
    assert codes, base
    assert code == max(codes), f"the sweep of {base} exits {code}, its slices alone {codes}"
    _compared += 1


# The test's ``explain --memory`` runs to compare once it has passed (its timings, if it has
# any, are its own): the directory each ran in, how, and the files it named as they were then
# (a test may write one file again and again).
_queued: list[tuple[str, CliRunner, Any, list[str], dict[str, Any], dict[str, bytes]]] = []


def _checked_invoke(self: CliRunner, cli: Any, args: Any = None, **kwargs: Any) -> Result:
    result = _invoke(self, cli, args, **kwargs)
    listed = [str(a) for a in args] if isinstance(args, (list, tuple)) else []
    tpu = _tpu(listed)
    if (
        listed[:1] == ["explain"]
        and "--memory" in listed
        and result.exit_code in (0, 1)
        and result.stdout.strip()  # a report (exit 1: with errors), not a refusal
        and (tpu is None or not ("," in tpu or tpu.lower() == "all" or tpu.endswith("-*")))
        and "-" not in listed  # a document read from stdin is read once
        and kwargs.get("input") is None
    ):
        files = {arg: Path(arg).read_bytes() for arg in listed if Path(arg).is_file()}
        _queued.append((str(Path.cwd()), self, cli, listed, kwargs, files))
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """After the test has passed, in its directory, with its files and settings still there:
    its runs compared."""
    _queued.clear()
    outcome = yield
    here = Path.cwd()
    try:
        for cwd, runner, cli, args, kwargs, files in _queued:
            os.chdir(cwd)
            now = {name: Path(name).read_bytes() for name in files if Path(name).is_file()}
            try:
                for name, data in files.items():
                    Path(name).write_bytes(data)
                compare(runner, cli, args, **kwargs)
            finally:
                for name, data in now.items():
                    Path(name).write_bytes(data)
    finally:
        os.chdir(here)
        _queued.clear()
    return outcome


def pytest_configure(config: pytest.Config) -> None:
    CliRunner.invoke = _checked_invoke  # type: ignore[method-assign,assignment]


def pytest_unconfigure(config: pytest.Config) -> None:
    CliRunner.invoke = _invoke  # type: ignore[method-assign]
    count = os.environ.get("TPUEMB_SWEEP_COUNT")
    if count:
        with Path(count).open("a", encoding="utf-8") as out:
            out.write(f"{_compared}\n")
