"""The TorchRec front-end is one package plus its registration line: the seam's test.

A scratch copy of tpuemb_cli is made *without* ``frontends/torchrec/`` and without its line in
``frontends/__init__.py``'s ``REGISTERED`` (tests/test_toy_front_end.py does the opposite: it
adds a package). The test shows that those are the only differences (every other file is
byte-identical, and none outside the package names TorchRec but the lines listed below, which
describe a feature of their own), that the copy keeps its layers and runs ``check``,
``explain``, ``diff`` and ``rules`` on the shipped examples exactly as the real tree does, and
that ``tpuemb_cli.torchrec`` is gone from it while ``tpuemb_cli.jax`` is not. On failure it
prints the files the front-end adds.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .architecture_guard import violations

ROOT = Path(__file__).parent.parent / "tpuemb_cli"
REPO = ROOT.parent
PACKAGE = "frontends/torchrec"
REGISTRATION = '    "tpuemb_cli.frontends.torchrec",\n'
NAMED = re.compile("torch[-_ ]?rec", re.IGNORECASE)

# Files outside the package that name TorchRec, each for the reason given: none but two lines
# that describe, for users, which statistics files `--stats` reads (its help and its rule's
# documentation). torchrec's own CSV statistics are read by the front-end's reader
# (`FrontEnd.statistics`, frontends/torchrec/load/fdo_csv.py), which load/fdo asks.
ALLOWED_FILES: dict[str, str] = {}
# (file, the line, stripped): lines that only describe what the statistics reader reads.
ALLOWED_LINES: dict[tuple[str, str], str] = {
    (
        "rules/stats/limit_below_measured.py",
        "jax-tpu-embedding's `NPZFileFDOClient` / `CSVFileFDOClient` or torchrec's CSV client "
        "write, or",
    ): "the rule's documentation says which statistics files `--stats` reads",
    (
        "cli/common.py",
        "\"torchrec's, or one; `tpuemb stats -o`): checks each stack's limits against them. \"",
    ): "`--stats`' help says which statistics files it reads",
}


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch tree holding tpuemb_cli without the TorchRec front-end."""
    tree = tmp_path_factory.mktemp("without_torchrec")
    package = tree / "tpuemb_cli"
    shutil.copytree(ROOT, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.rmtree(package / PACKAGE)
    registration = package / "frontends" / "__init__.py"
    text = registration.read_text(encoding="utf-8")
    assert text.count(REGISTRATION) == 1
    registration.write_text(text.replace(REGISTRATION, ""), encoding="utf-8")
    return tree


def _files(root: Path) -> set[str]:
    return {
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_torchrec_is_its_package_and_one_line(copy: Path) -> None:
    package = copy / "tpuemb_cli"
    added = sorted(_files(ROOT) - _files(package))
    own = sorted(name for name in _files(ROOT) if name.startswith(f"{PACKAGE}/"))
    listing = "the files the TorchRec front-end adds:\n" + "\n".join(added)
    # Its package holds its record, proto, engine, rules, views, compat, loader and facade.
    for name in ("__init__.py", "api.py", "engine.py", "pb/torchrec_spec.proto", "views"):
        assert any(file.startswith(f"{PACKAGE}/{name}") for file in added), listing
    assert added == own, listing
    assert _files(package) <= _files(ROOT)
    changed = [
        name
        for name in sorted(_files(package))
        if not filecmp.cmp(ROOT / name, package / name, shallow=False)
    ]
    assert changed == ["frontends/__init__.py"], listing
    before = (ROOT / changed[0]).read_text(encoding="utf-8").splitlines()
    after = (package / changed[0]).read_text(encoding="utf-8").splitlines()
    assert [line for line in before if line not in after] == [REGISTRATION.rstrip("\n")]
    assert len(after) == len(before) - 1


def test_nothing_else_names_torchrec(copy: Path) -> None:
    package = copy / "tpuemb_cli"
    found: list[tuple[str, str]] = []
    for name in sorted(_files(package)):
        try:
            text = (package / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = (package / name).read_bytes().decode("latin-1")
        found.extend((name, line.strip()) for line in text.splitlines() if NAMED.search(line))
    unexplained = [
        f"{name}: {line}"
        for name, line in found
        if name not in ALLOWED_FILES and (name, line) not in ALLOWED_LINES
    ]
    assert unexplained == []
    # Each allowance still allows something (a stale one is reported).
    assert {name for name, _ in found} >= set(ALLOWED_FILES)
    assert set(found) >= set(ALLOWED_LINES), set(ALLOWED_LINES) - set(found)
    assert all(reason.strip() for reason in (*ALLOWED_FILES.values(), *ALLOWED_LINES.values()))


def test_the_copy_keeps_the_layers(copy: Path) -> None:
    assert violations(copy / "tpuemb_cli") == []


# Runs the CLI in-process (click's runner) on each invocation, with `tree` first on sys.path,
# and says whether each facade imports; prints a JSON document.
DRIVER = """\
import importlib, json, os, sys
tree = sys.argv[1]
sys.path.insert(0, tree)
for variable in ("TPUEMB_FORMAT", "TPUEMB_JOBS", "TPUEMB_DEBUG", "GITHUB_ACTIONS"):
    os.environ.pop(variable, None)
os.environ["COLUMNS"] = "100"
import tpuemb_cli
from click.testing import CliRunner
from tpuemb_cli.cli.main import main
runs = []
for args in json.loads(sys.stdin.read()):
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    error = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        error += f"<uncaught {type(result.exception).__name__}: {result.exception}>"
    runs.append([result.exit_code, result.stdout, error])
facades = {}
for name in ("tpuemb_cli.jax", "tpuemb_cli.torchrec"):
    try:
        facades[name] = importlib.import_module(name).__name__
    except ModuleNotFoundError as error:
        facades[name] = f"ModuleNotFoundError: {error}"
print(json.dumps({"package": tpuemb_cli.__file__, "runs": runs, "facades": facades}))
"""

DOCUMENTS = (".pbtxt", ".json", ".pb", ".yaml", ".keras")
# The front-end's own examples: TorchRecSpecs, which the copy does not read (it says so, below).
OWN_EXAMPLES = "examples/torchrec/"


# torchrec's FDO client's statistics (a CSV file): the front-end's reader reads them; the copy,
# without it, refuses them as no statistics file it knows (below).
TORCHREC_STATS = "table_name,max_ids,max_unique_ids,dropped_count\r\nuser_item,900,400,3\r\n"


def _invocations(stats: Path) -> list[list[str]]:
    examples = sorted(
        path.relative_to(REPO).as_posix()
        for path in (REPO / "examples").rglob("*")
        if path.is_file()
        and path.name.endswith(DOCUMENTS)
        and not path.relative_to(REPO).as_posix().startswith(OWN_EXAMPLES)
    )
    runs: list[list[str]] = [
        ["rules"],
        ["rules", "--output-format", "json"],
        # All of them at once (`check examples` would read the front-end's own too).
        ["check", "--isolated", "--format", "concise", "--jobs", "1", *examples],
        ["check", "--isolated", "--stats", str(stats), "examples/jax/recommender.stacked.pbtxt"],
        ["check", "--isolated", "--stats", str(stats), "--show-settings", "examples/jax"],
    ]
    for name in examples:
        for output in ("full", "concise", "json", "sarif"):
            runs.append(["check", "--isolated", "--format", output, name])
        runs.append(["check", "--isolated", "--tpu", "v5p", name])
        runs.append(["explain", name])
        runs.append(["explain", "--memory", name])
        runs.append(["explain", "--memory", "--format", "json", "--tpu", "v5p-8", name])
        runs.append(["diff", "--isolated", name, name])
        if "/changes/" in name and ".next." in name:
            old = name.replace("/changes/", "/").replace(".next.", ".")
            assert old in examples, old
            for output in ("full", "json"):
                runs.append(["diff", "--isolated", "--format", output, old, name])
                runs.append(["diff", "--isolated", "--format", output, name, old])
    return runs


def _drive(tree: Path, runs: list[list[str]]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tree)],
        cwd=REPO,
        input=json.dumps(runs),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    assert Path(found["package"]).parent == tree / "tpuemb_cli"
    return found


def _without_torchrec_rules(args: list[str], stdout: str) -> str:
    """The real tree's output less the TorchRec front-end's rules: ``rules`` less their rows,
    ``--show-settings`` counting the rules enabled without them."""
    from tpuemb_cli.rules import CATALOG

    codes = {e.code for e in CATALOG if e.module.startswith("tpuemb_cli.frontends.torchrec.")}
    assert codes, "the TorchRec front-end has rules"
    if "--show-settings" in args:
        counted = re.findall(r"\(enabled: (\d+) rules\)", stdout)
        assert counted, stdout
        return re.sub(
            r"\(enabled: (\d+) rules\)",
            lambda m: f"(enabled: {int(m.group(1)) - len(codes)} rules)",
            stdout,
        )
    if args == ["rules"]:
        kept = [line for line in stdout.splitlines(keepends=True) if line[:5] not in codes]
        assert len(kept) == len(stdout.splitlines()) - len(codes)
        return "".join(kept)
    listed = json.loads(stdout)
    kept_rows = [row for row in listed if row["code"] not in codes]
    assert len(kept_rows) == len(listed) - len(codes)
    return json.dumps(kept_rows, indent=2) + "\n"


@pytest.mark.slow
def test_the_copy_runs_the_examples_as_the_real_tree_does(copy: Path, tmp_path: Path) -> None:
    (tmp_path / "fdo_stats_0_1.csv").write_text(TORCHREC_STATS, encoding="utf-8")
    runs = _invocations(tmp_path)
    real = _drive(REPO, runs)
    without = _drive(copy, runs)
    different = []
    for args, (code, stdout, stderr), other in zip(
        runs, real["runs"], without["runs"], strict=True
    ):
        if "--stats" in args:
            continue  # torchrec's statistics: the front-end's own format (below)
        if args[0] == "rules" or "--show-settings" in args:
            stdout = _without_torchrec_rules(args, stdout)
        if [code, stdout, stderr] != other:
            different.append((args, [code, stdout, stderr], other))
    assert different == []
    # The examples were read, and each command said something; the statistics were read.
    assert all(stdout or stderr for _, stdout, stderr in real["runs"])
    assert [args for args, run in zip(runs, real["runs"], strict=True) if "Usage:" in run[2]] == []
    assert "the statistics measured up to 900" in real["runs"][3][1]
    assert "(1 stack from 1 file (torchrec-csv))" in real["runs"][4][1]
    # Without the front-end, its statistics files are no format tpuemb reads: a usage error.
    for code, stdout, stderr in without["runs"][3:5]:
        assert code == 2 and stdout == "", (code, stdout, stderr)
        assert "the FDO clients write `key,values` (jax-tpu-embedding)\n" in stderr, stderr
    assert real["facades"] == {
        "tpuemb_cli.jax": "tpuemb_cli.jax",
        "tpuemb_cli.torchrec": "tpuemb_cli.frontends.torchrec.api",
    }
    assert without["facades"] == {
        "tpuemb_cli.jax": "tpuemb_cli.jax",
        "tpuemb_cli.torchrec": "ModuleNotFoundError: No module named 'tpuemb_cli.torchrec'",
    }


def test_the_copy_says_it_does_not_read_the_front_end_s_examples(copy: Path) -> None:
    own = sorted(
        path.relative_to(REPO).as_posix() for path in (REPO / OWN_EXAMPLES).rglob("*.pbtxt")
    )
    assert own, "the front-end ships examples"
    found = _drive(copy, [["check", "--isolated", "--format", "concise", *own]])
    code, stdout, _ = found["runs"][0]
    assert code == 1
    for name in own:
        assert (
            f"{name}: TE009 [error] not a TPU embedding document: its `# proto-message:` header "
            "names tpuemb.torchrec.TorchRecSpec"
        ) in stdout, stdout
