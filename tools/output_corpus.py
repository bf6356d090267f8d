"""The recorded corpus of tpuemb's outputs: every command that reads one file, on every fixture.

    python tools/output_corpus.py record OUT.json [--jobs N]
    python tools/output_corpus.py compare OUT.json [--jobs N]

A refactor must leave every output byte-identical. ``record`` runs tpuemb on every example and
test fixture (examples/, tests/data/, tests/golden/ and, when it exists, the shared fixtures
directory next to the checkouts -- discovered, not listed) through ``check`` (full, concise, json,
and once with ``--tpu v5p``), ``explain``, ``explain --memory`` (text and json, and with
``--tpu v5p-8``), ``convert`` to
every format, ``compile`` to every target (specs), ``diff`` of each document with itself and of
the pairs the fixtures hold (``old``/``new``, ``changes/X.next.Y`` against ``X.Y``), ``diff
--against-checkpoint`` of each checkpoint with the configs beside it, and ``check`` of the
fixtures' SavedModel folders and repository trees; it writes each invocation's stdout, stderr and
exit code. ``compare`` re-runs the invocations a corpus holds and prints each one whose output
differs (a short unified diff); exit 1 if any does. Record on main before a refactor, compare
after (docs/architecture.md).

The CLI runs in-process (click's CliRunner) in a pool of worker processes; only the check of a
folder, which may fork its own workers, runs as a subprocess. Outputs are made independent of
where the checkout is: commands run from the repository root with relative paths, and the
absolute paths of the repository and of the shared fixtures are written as ``<repo>`` and
``<fixtures>``. One output is nondeterministic by design and normalised: ``convert --to json``
and ``--to yaml`` of a message with map fields (a GraphDef's ``attr``, a Keras optimizer's
``config``, a spec's per-stack limits) list the map's entries in the order protobuf's upb runtime
iterates them, which is seeded per process. Such an output is stored parsed, with the entries
of every map field sorted, re-dumped as JSON under a ``<normalised ...>`` first line (so its
content is compared, not its layout). Recording twice gives the same file
(tests/test_output_corpus.py checks the round trip).
"""

from __future__ import annotations

import argparse
import base64
import difflib
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def _shared_fixtures() -> Path:
    """The fixtures shared by every checkout: ``shared/fixtures`` beside the repository or one of
    its parents (/work/shared/fixtures for /work/main and /work/wt/NAME alike)."""
    for parent in REPO.parents:
        if (parent / "shared" / "fixtures").is_dir():
            return parent / "shared" / "fixtures"
    return REPO.parent / "shared" / "fixtures"


# Outside the repository: run by absolute path and written as <fixtures>.
SHARED_FIXTURES = _shared_fixtures()
ROOTS = ("examples", "tests/data", "tests/golden")
# What `check` reads as a document (its --help); other files get `check` only (their refusal).
DOCUMENT_SUFFIXES = (
    ".pbtxt",
    ".textproto",
    ".txtpb",
    ".prototxt",
    ".json",
    ".keras",
    ".pb",
    ".binpb",
    ".yaml",
    ".yml",
    ".config",
)
CONFIG_SUFFIXES = (".pbtxt", ".textproto", ".txtpb", ".prototxt", ".yaml", ".yml", ".json")
SKIPPED_PARTS = ("__pycache__", ".git")
# The JSON and field names of the map fields of tpuemb's messages (tpuemb_cli/pb): their order in
# `convert --to json|yaml` is protobuf's per-process hash order (see above).
MAP_FIELDS = frozenset(
    {
        "argAttr", "arg_attr", "attr", "controlRet", "control_ret", "resourceArgUniqueId",
        "resource_arg_unique_id", "ret", "framesById", "frames_by_id", "nameToTraceId",
        "name_to_trace_id", "traces", "tracesById", "traces_by_id", "boolParams",
        "bool_params", "floatParams", "float_params", "config", "settings",
        "stackActivationMemBytesLimit", "stack_activation_mem_bytes_limit",
        "stackMaxIdsPerPartition", "stack_max_ids_per_partition",
        "stackMaxUniqueIdsPerPartition", "stack_max_unique_ids_per_partition",
        "maxIdsPerTable", "max_ids_per_table", "maxUniqueIdsPerTable",
        "max_unique_ids_per_table",
    }
)  # fmt: skip
MAPS_SORTED = "<normalised: map fields' entries sorted, re-dumped as JSON>\n"
# Invocations longer than this many lines of unified diff are cut in `compare`'s report.
DIFF_LINES = 40

Invocation = tuple[str, ...]


# -- discovery ------------------------------------------------------------------------------------
def fixture_files(fixtures: Path | None) -> list[str]:
    """Every fixture file, as the path to pass to tpuemb from the repository root."""
    found: list[str] = []
    for root in ROOTS:
        found += _files(REPO / root, lambda path: str(path.relative_to(REPO)))
    if fixtures is not None and fixtures.is_dir():
        found += _files(fixtures, str)
    return found


def _files(root: Path, shown: Any) -> list[str]:
    if not root.is_dir():
        return []
    return sorted(
        shown(path)
        for path in root.rglob("*")
        if path.is_file() and not any(part in SKIPPED_PARTS for part in path.parts)
    )


def invocations(files: Sequence[str]) -> list[Invocation]:
    """Every invocation the corpus records for ``files``, sorted."""
    runs: set[Invocation] = set()
    for name in files:
        runs.update(_single_file(name))
    runs.update(_pairs(files))
    runs.update(_checkpoints(files))
    runs.update(_folders(files))
    return sorted(runs)


def _single_file(name: str) -> Iterator[Invocation]:
    yield ("check", "--isolated", "--format", "full", name)
    if not name.endswith(DOCUMENT_SUFFIXES):
        return
    yield ("check", "--isolated", "--format", "concise", name)
    yield ("check", "--isolated", "--format", "json", name)
    yield ("check", "--isolated", "--format", "full", "--tpu", "v5p", name)
    yield ("check", "--format", "concise", name)  # with the settings found beside the file
    yield ("explain", name)
    yield ("explain", "--memory", name)
    yield ("explain", "--memory", "--format", "json", name)
    yield ("explain", "--memory", "--tpu", "v5p-8", name)
    yield ("explain", "--memory", "--tpu", "v5p-8", "--format", "json", name)
    for target in ("text", "json", "binary", "yaml"):
        yield ("convert", "--to", target, name)
    yield ("diff", "--isolated", name, name)
    if _is_spec(name):
        yield ("compile", name)
        yield ("compile", "--target", "sparsecore", name)
        yield ("compile", "--target", "sparsecore", "--order", "stacker", name)
        yield ("compile", "--target", "jax", name)
        yield ("compile", "--target", "jax", "--jax-version", "0.2.0", name)


def _is_spec(name: str) -> bool:
    base = Path(name).name
    return base.endswith((".yaml", ".yml")) or ".spec." in base or "/specs/" in name


def _pairs(files: Sequence[str]) -> Iterator[Invocation]:
    """``diff OLD NEW`` for the pairs the fixtures hold, both ways round."""
    present = set(files)
    for name in files:
        path = Path(name)
        partner: str | None = None
        if "old" in path.parts or path.stem == "old":
            swapped = [("new" if part == "old" else part) for part in path.parts[:-1]]
            leaf = path.name.replace("old", "new") if path.stem == "old" else path.name
            partner = str(Path(*swapped, leaf))
        elif path.parent.name == "changes" and ".next." in path.name:
            partner = str(path.parent.parent / path.name.replace(".next.", ".", 1))
            partner, name = name, partner  # the base is the old one
        if partner is None or partner not in present or name not in present:
            continue
        for old, new in ((name, partner), (partner, name)):
            yield ("diff", "--isolated", "--format", "full", old, new)
            yield ("diff", "--isolated", "--format", "json", old, new)
            yield ("diff", "--isolated", "--format", "full", "--tpu", "v5p-8", old, new)


def _checkpoints(files: Sequence[str]) -> Iterator[Invocation]:
    """``diff --against-checkpoint`` of each checkpoint folder with the configs of its tree."""
    for name in files:
        path = Path(name)
        if path.name != "checkpoint":
            continue
        tree = path.parent.parent
        for other in files:
            if other.startswith(f"{tree}/") and other.endswith(CONFIG_SUFFIXES):
                yield ("diff", "--isolated", "--against-checkpoint", str(path.parent), other)


def _folders(files: Sequence[str]) -> Iterator[Invocation]:
    """``check`` of each SavedModel folder and of each repository tree (``*/tree``)."""
    folders: set[str] = set()
    for name in files:
        path = Path(name)
        if path.name == "saved_model.pb":
            folders.add(str(path.parent))
        for parent in path.parents:
            if parent.name == "tree":
                folders.add(str(parent))
    for folder in sorted(folders):
        yield ("check", "--isolated", "--format", "concise", folder)


# -- running --------------------------------------------------------------------------------------
def _prepare_worker() -> None:
    os.chdir(REPO)
    for variable in ("TPUEMB_FORMAT", "TPUEMB_JOBS", "TPUEMB_DEBUG", "GITHUB_ACTIONS"):
        os.environ.pop(variable, None)
    os.environ["COLUMNS"] = "100"
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def _in_process(args: Invocation) -> tuple[int, bytes, bytes]:
    from click.testing import CliRunner

    from tpuemb_cli.cli.main import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=True)
    stderr = result.stderr_bytes
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # An uncaught exception is an output too (a traceback would name absolute paths).
        error = result.exception
        stderr += f"<uncaught {type(error).__name__}: {error}>\n".encode()
    return result.exit_code, result.stdout_bytes, stderr


def _subprocess(args: Invocation) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", *args], cwd=REPO, env=env, capture_output=True
    )
    return done.returncode, done.stdout, done.stderr


def run(args: Invocation) -> dict[str, Any]:
    """One invocation's outputs, normalised, as the corpus stores them."""
    forks = args[0] == "check" and Path(args[-1]).is_dir()
    code, stdout, stderr = (_subprocess if forks else _in_process)(args)
    if args[0] == "convert" and args[2] in ("json", "yaml") and code == 0:
        stdout = _maps_sorted(stdout, args[2])
    return {
        "args": [_normalised(arg) for arg in args],
        "exit": code,
        **_stored("stdout", stdout),
        **_stored("stderr", stderr),
    }


def _maps_sorted(output: bytes, encoding: str) -> bytes:
    """``output`` parsed, with every map field's entries sorted, when it holds a map field."""
    try:
        if encoding == "json":
            parsed = json.loads(output)
        else:
            import yaml

            parsed = yaml.safe_load(output)
    except Exception:  # JSON's or yaml's errors: the output is stored as it is
        return output
    found: list[bool] = []
    sorted_maps = _sort_maps(parsed, found)
    if not found:
        return output
    text = json.dumps(sorted_maps, indent=1, ensure_ascii=False, default=str)
    return (MAPS_SORTED + text + "\n").encode("utf-8")


def _sort_maps(value: Any, found: list[bool], is_map: bool = False) -> Any:
    if isinstance(value, dict):
        items = [(key, _sort_maps(item, found, key in MAP_FIELDS)) for key, item in value.items()]
        if is_map:
            found.append(True)
            items.sort(key=lambda item: str(item[0]))
        return dict(items)
    if isinstance(value, list):
        return [_sort_maps(item, found) for item in value]
    return value


def _normalised(text: str) -> str:
    return text.replace(str(SHARED_FIXTURES), "<fixtures>").replace(str(REPO), "<repo>")


def _stored(stream: str, data: bytes) -> dict[str, str]:
    try:
        return {stream: _normalised(data.decode("utf-8"))}
    except UnicodeDecodeError:
        return {f"{stream}_base64": base64.b64encode(data).decode("ascii")}


def _actual(args: Sequence[str]) -> Invocation:
    """An invocation as stored, with its placeholders made paths again."""
    return tuple(
        arg.replace("<fixtures>", str(SHARED_FIXTURES)).replace("<repo>", str(REPO)) for arg in args
    )


def run_all(runs: Sequence[Invocation], jobs: int) -> list[dict[str, Any]]:
    _prepare_worker()
    if jobs == 1:
        return [run(args) for args in runs]
    # fork: the workers inherit the imported CLI; each takes small chunks, so one slow file
    # (a 100,000-table spec) does not hold a whole share back.
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs, initializer=_prepare_worker) as pool:
        return list(pool.imap(run, runs, chunksize=4))


# -- commands -------------------------------------------------------------------------------------
def record(out: Path, jobs: int, fixtures: Path | None, only: Sequence[str]) -> int:
    started = time.monotonic()
    files = fixture_files(fixtures)
    if only:
        files = [name for name in files if any(_normalised(name) == o for o in only)]
    results = run_all(invocations(files), jobs)
    corpus = {"tool": "tools/output_corpus.py", "version": 1, "invocations": results}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(corpus, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    seconds = time.monotonic() - started
    print(f"{out}: {len(results)} invocations recorded in {seconds:.0f} s", file=sys.stderr)
    return 0


def compare(corpus_path: Path, jobs: int) -> int:
    started = time.monotonic()
    recorded: list[dict[str, Any]] = json.loads(corpus_path.read_text())["invocations"]
    fresh = run_all([_actual(entry["args"]) for entry in recorded], jobs)
    differing = 0
    for before, after in zip(recorded, fresh, strict=True):
        if before == after:
            continue
        differing += 1
        print(f"=== tpuemb {' '.join(before['args'])}")
        for line in _differences(before, after):
            print(line)
    seconds = time.monotonic() - started
    print(
        f"{corpus_path}: {differing} of {len(recorded)} invocations differ ({seconds:.0f} s)",
        file=sys.stderr,
    )
    return 1 if differing else 0


def _differences(before: dict[str, Any], after: dict[str, Any]) -> Iterable[str]:
    if before["exit"] != after["exit"]:
        yield f"exit code: {before['exit']} -> {after['exit']}"
    for key in sorted({*before, *after} - {"args", "exit"}):
        old, new = before.get(key, ""), after.get(key, "")
        if old == new:
            continue
        lines = list(
            difflib.unified_diff(
                old.splitlines(), new.splitlines(), f"{key} recorded", f"{key} now", lineterm=""
            )
        )
        yield from lines[:DIFF_LINES]
        if len(lines) > DIFF_LINES:
            yield f"... ({len(lines) - DIFF_LINES} more lines)"


def main(argv: Sequence[str] | None = None) -> int:
    global SHARED_FIXTURES
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=SHARED_FIXTURES,
        help="the shared fixtures folder, written <fixtures> (default: %(default)s; record: "
        "recorded when it exists)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="FILE",
        help="record: only these fixture files (as the corpus names them); repeatable",
    )
    options = parser.parse_args(argv)
    SHARED_FIXTURES = options.fixtures.resolve()  # what <fixtures> stands for, in the workers too
    if options.action == "record":
        return record(options.corpus, options.jobs, options.fixtures, options.only)
    return compare(options.corpus, options.jobs)


if __name__ == "__main__":
    sys.exit(main())
