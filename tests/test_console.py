"""The console script's fast exit: exit codes, flushed output and files, as a normal exit gives."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli.cli.console import exit_code
from tpuemb_cli.rules import CATALOG

EXAMPLES = Path(__file__).parent.parent / "examples"
GOOD = (EXAMPLES / "ranking_model.pbtxt").read_bytes()
BAD = GOOD.replace(b"vocabulary_size: ", b"vocabulary_size: -", 1)


def tpuemb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", *args], capture_output=True, text=True, check=False
    )


def test_exit_codes_and_output(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.pbtxt", tmp_path / "bad.pbtxt"
    good.write_bytes(GOOD)
    bad.write_bytes(BAD)
    assert tpuemb("check", str(good)).returncode == 0
    result = tpuemb("check", "--format", "json", str(bad))
    assert result.returncode == 1 and result.stderr == ""
    assert json.loads(result.stdout)["findings"][0]["rule"] == "TE403"
    missing = tpuemb("check", str(tmp_path / "nope.pbtxt"))
    assert missing.returncode == 2 and "nope.pbtxt" in missing.stderr
    usage = tpuemb("check", "--no-such-option")
    assert usage.returncode == 2 and "No such option" in usage.stderr
    assert tpuemb("--version").stdout.startswith("tpuemb, version ")


def test_report_file_and_large_stdout_are_complete(tmp_path: Path) -> None:
    # os._exit skips the interpreter's flushing: what tpuemb wrote must be there in full.
    bad = tmp_path / "bad.pbtxt"
    bad.write_bytes(BAD)
    report = tmp_path / "report.sarif"
    result = tpuemb(
        "check", "--format", "sarif", "--output-file", str(report), "--format", "full", str(bad)
    )
    assert result.returncode == 1
    assert json.loads(report.read_text())["runs"][0]["results"]
    assert "TE403" in result.stdout and result.stdout.endswith("\n")
    rules = tpuemb("rules")
    assert rules.returncode == 0  # more than 8 KB: the last line arrives too
    last = CATALOG[-1].code  # in catalog order: the front-ends' rules after tpuemb's
    assert len(rules.stdout) > 8192 and rules.stdout.splitlines()[-1].startswith(last)


def test_a_closed_pipe_gives_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pbtxt"
    bad.write_bytes(BAD)
    for args, codes in ((["rules"], (0, 1)), (["check", "--format", "full", str(bad)], (2,))):
        reader = subprocess.Popen(
            [sys.executable, "-m", "tpuemb_cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert reader.stdout is not None and reader.stderr is not None
        reader.stdout.close()  # the reader goes away before tpuemb writes
        code = reader.wait(timeout=60)
        # click reports a broken pipe with status 1 (or the output fit the pipe: 0); `check`
        # with 2: its report was lost
        assert code in codes and b"Traceback" not in reader.stderr.read(), (args, code)


@pytest.mark.parametrize(
    ("code", "status"), [(None, 0), (0, 0), (1, 1), (2, 2), (256 + 3, 3), ("message", 1)]
)
def test_exit_code_matches_sys_exit(code: object, status: int) -> None:
    assert exit_code(code) == status


# Modules an editable install's site hook imports (setuptools' finder: pathlib, which imports
# urllib.parse and ipaddress) and a regular install's does not: forgotten before the check runs,
# so that the check is seen importing them if it does.
SITE_ONLY = ("pathlib", "urllib.parse", "ipaddress")


def _imported_by_check(config: Path) -> set[str]:
    """The modules `tpuemb check config` imports, beyond what the interpreter's site hooks do."""
    code = (
        "import sys\n"
        f"for name in {SITE_ONLY!r}:\n    sys.modules.pop(name, None)\n"
        "site = set(sys.modules)\n"  # what the interpreter's site hooks import is not ours
        "from tpuemb_cli.cli.main import main\n"
        f"sys.argv = ['tpuemb', 'check', {str(config)!r}]\n"
        "try:\n    main(prog_name='tpuemb')\nexcept SystemExit:\n    pass\n"
        "print(sorted(set(sys.modules) - site), file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = set(ast.literal_eval(result.stderr))
    assert "tpuemb_cli.cli.check" in loaded
    return loaded


def test_a_one_file_check_imports_only_what_it_uses(tmp_path: Path) -> None:
    # Start-up is most of a one-file run: the machinery for fixing, forking workers and writing
    # files atomically (tempfile and its compression modules) is imported only when used.
    config = tmp_path / "good.pbtxt"
    config.write_bytes(GOOD)
    unwanted = {
        "tempfile",
        "tpuemb_cli.fix",
        "tpuemb_cli.fix.atomic",
        "tpuemb_cli.workspace.parallel",
        "tpuemb_cli.cli.fixing",
        "tpuemb_cli.load.text_editor",
        "tpuemb_cli.cli.convert",
        "tpuemb_cli.cli.explain",
        # the language server and its libraries (the optional `server` extra)
        "tpuemb_cli.cli.server",
        "tpuemb_cli.server",
        "pygls",
        "lsprotocol",
        # the chip table and the memory model: only when a chip is named
        "tpuemb_cli.model.chips",
        "tpuemb_cli.model.memory",
        # diff's model
        "tpuemb_cli.compat",
        # what a clean file does not need: parse problems, the spec's gencode
        "tpuemb_cli.load.problems",
        "tpuemb_cli.pb.spec",
        "tpuemb_cli.pb.spec.embedding_spec_pb2",
    }
    assert not unwanted & _imported_by_check(config)


def test_the_benchmarks_one_table_check_imports_no_fix_or_suppression_machinery(
    tmp_path: Path,
) -> None:
    # bench/startup.py's config: no comment, no finding, so no suppression and no fix. (inspect
    # is imported, by click itself: the start-up benchmark's floor imports it too.)
    from bench.configs import build, render

    config = tmp_path / "one_table.pbtxt"
    config.write_bytes(render(build(1))["text"])
    loaded = _imported_by_check(config)
    unwanted = {
        "tpuemb_cli.engine.suppressions",
        "tpuemb_cli.model.edits",
        "tpuemb_cli.load.problems",
        "tpuemb_cli.pb.spec",
        "tpuemb_cli.model.optimizers",  # for a finding's message; its table is built on import
        "bisect",  # for the line of a finding; it loads a shared library
        "traceback",  # for TPUEMB_DEBUG; it imports textwrap, whose patterns compile on import
        # a file named, without a configuration file: paths are strings (docs/development.md)
        *SITE_ONLY,
        # its one table is SGD's: no optimizer rule of another algorithm (the catalog's variant)
        "tpuemb_cli.rules.optimizer.adam_beta_out_of_range",
        "tpuemb_cli.rules.optimizer.ftrl_positive_lr_power",
    }
    assert not unwanted & loaded


def test_the_collector_is_off_before_click_is_imported() -> None:
    # The console script's entry point (tpuemb_cli/__main__.py) turns it off before the cli
    # package, which imports click: with it on, importing click ran a dozen collections.
    code = (
        "import gc, sys\n"
        "class Spy:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'click':\n"
        "            print('on' if gc.isenabled() else 'off', file=sys.stderr)\n"
        "sys.meta_path.insert(0, Spy())\n"
        "sys.argv = ['tpuemb', '--version']\n"
        "from tpuemb_cli.__main__ import run\n"
        "run()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "off\n")
    assert result.stdout.startswith("tpuemb, version ")


def test_the_console_script_defers_what_a_check_never_uses_and_imports_no_locale(
    tmp_path: Path,
) -> None:
    # protobuf's runtime imports `calendar` (and with it `locale`) for Timestamp conversions a
    # check never makes, and click's --help and --version text went through gettext, which
    # imports `locale`: 5-6M instructions of the start-up bench/startup.py measures. The console
    # script (tpuemb_cli/__main__.py) defers `calendar`; the CLI makes both options without gettext.
    from bench.configs import build, render

    config = tmp_path / "one_table.pbtxt"
    config.write_bytes(render(build(1))["text"])
    code = (
        "import os, sys\n"
        "def exit_(code):\n"
        "    kinds = {type(sys.modules.get(n)).__name__ for n in DEFERRED}\n"
        "    print(*kinds, 'locale' in sys.modules, code, file=sys.stderr)\n"
        "    sys.stderr.flush()\n"
        "    real(code)\n"
        "real, os._exit = os._exit, exit_\n"
        f"sys.argv = ['tpuemb', 'check', {str(config)!r}]\n"
        "from tpuemb_cli.__main__ import DEFERRED, run\n"
        "run()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # Every deferred module is still deferred when the check is done: none was used.
    assert result.stderr == "_Deferred False 0\n", result.stderr
    assert result.stdout == "All checks passed (1 file checked).\n"


@pytest.mark.slow  # four checks of the examples, each in a process of its own
def test_the_deferred_modules_are_only_what_protobuf_imports_and_a_check_never_uses() -> None:
    # Deferring changes when a module is imported, not what it does. Under each implementation
    # protobuf can run -- upb, the default; pure Python, which uses python_message -- the
    # examples' findings are the same as without any deferral.
    runs = {}
    for implementation in ("upb", "python"):
        for entry in ("tpuemb_cli.__main__", "tpuemb_cli.cli.console"):  # deferring, or not
            code = (
                f"import sys; sys.argv = ['tpuemb', 'check', {str(EXAMPLES)!r}, "
                "'--output-format', 'json']\n"
                f"from {entry} import run\n"
                "run()\n"
            )
            runs[implementation, entry] = subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                env={**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": implementation},
            )
    first = runs["upb", "tpuemb_cli.cli.console"]
    assert first.returncode == 1 and json.loads(first.stdout)
    for result in runs.values():
        assert (result.returncode, result.stdout, result.stderr) == (
            first.returncode,
            first.stdout,
            first.stderr,
        )


def test_a_deferred_module_is_the_real_one_once_used() -> None:
    # What protobuf would use it for, through the module it imported: the real calendar's.
    code = (
        "import sys\n"
        "from tpuemb_cli.__main__ import _defer\n"
        "_defer('calendar')\n"
        "from google.protobuf.internal import well_known_types\n"
        "import calendar\n"
        "deferred = sys.modules['calendar']\n"
        "from google.protobuf.timestamp_pb2 import Timestamp\n"
        "import datetime\n"
        "stamp, when = Timestamp(), datetime.datetime(2026, 11, 29, tzinfo=datetime.timezone.utc)\n"
        "stamp.FromDatetime(when)\n"
        "real = sys.modules['calendar']\n"
        "print(stamp.seconds == when.timestamp(), file=sys.stderr)\n"
        "print(type(deferred).__name__, type(real).__name__, file=sys.stderr)\n"
        "print(calendar.timegm is real.timegm, calendar.isleap(2024), file=sys.stderr)\n"
        "print(hasattr(calendar, 'no_such_name'), sys.modules['calendar'] is real,\n"
        "      file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stderr.splitlines() == [
        "True",
        "_Deferred module",
        "True True",
        "False True",
    ], result.stderr


def test_threads_reading_a_deferred_module_first_wait_for_its_one_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The language server lints on threads: a second thread reading a deferred module while the
    # first imports it waits for that import, as an `import` statement would.
    import threading

    from tpuemb_cli.__main__ import _defer

    (tmp_path / "tpuemb_slow_module.py").write_text(
        "import time\nimports = globals().setdefault('imports', 0) + 1\ntime.sleep(0.2)\nX = 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tpuemb_slow_module", raising=False)
    _defer("tpuemb_slow_module")
    deferred: Any = sys.modules["tpuemb_slow_module"]  # as `import` would give it

    read: list[object] = []

    def reader(delay: float) -> None:
        time.sleep(delay)
        try:
            read.append(deferred.X)
        except Exception as error:  # what the test is about
            read.append(error)

    threads = [threading.Thread(target=reader, args=(delay,)) for delay in (0, 0.05)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    real = sys.modules["tpuemb_slow_module"]
    assert read == [1, 1] and real is not deferred and real.imports == 1
    assert deferred.__spec__ is real.__spec__ and deferred.X == 1
    monkeypatch.delitem(sys.modules, "tpuemb_slow_module")
