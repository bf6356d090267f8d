"""The baseline's properties, shared by the hypothesis test (tests/test_baseline_fuzz.py) and the
atheris target (fuzz/fuzz_baseline.py): one generator of projects, driven by whatever chooses.

A project is a few configs with findings -- valid ones mutated: bad values, unknown and duplicate
fields, headers, licence and suppression comments, BOM, CRLF -- and maybe a configuration file in
one of the layouts TOML allows. ``check_baseline`` runs ``check --add-suppressions`` on it from
another folder and asserts:

- a configuration that could not be read is an error (exit 2) and nothing is written;
- the configuration written still parses, and holds every setting it held;
- the next ``check`` reports exactly the findings the baseline leaves (parse and suppression
  problems): none lost, none invented, and it exits 0 when those are not errors;
- a second ``--add-suppressions`` changes no byte.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from tpuemb_cli.cli.check import CheckOptions, execute
from tpuemb_cli.cli.common import Streams
from tpuemb_cli.cli.outputs import Output
from tpuemb_cli.engine.baseline import not_baselined

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

BASE_TEXT = """\
table_descriptor {
  name: "video"
  vocabulary_size: 1000
  dimension: 16
  optimization_parameters {
    adagrad {}
    learning_rate { constant: 0 }
    gradient_accumulation_status: ENABLED
  }
}
table_descriptor { name: "unused" vocabulary_size: 8 dimension: 4
  optimization_parameters { sgd {} learning_rate { constant: 0.1 } } }
mode: TRAINING
num_hosts: 1
num_tensor_cores: 8
feature_descriptor { name: "watched" table_id: 0 input_shape: 16 }
"""
BASE_JSON = (
    '{"tableDescriptor": [{"name": "t", "vocabularySize": 8, "dimension": 4,\n'
    ' "optimizationParameters": {"adagrad": {}, "learningRate": {"constant": 0}}}],\n'
    ' "mode": "TRAINING", "numHosts": 1, "numTensorCores": 1,\n'
    ' "featureDescriptor": [{"tableId": 0, "inputShape": [4]}]}\n'
)
VALUES = ["0", "-1", "3", "nan", "-inf", "1e40", '"x"', "INFERENCE", "2147483648", "true", "{}"]
LINES = [
    "",
    "bogus_field: 1",
    "mode: INFERENCE",
    "# a comment",
    "# tpuemb: ignore[TE406] kept for later",
    "# tpuemb: file-ignore[TE105] frozen",
    "# tpuemb: ignore",
    'table_descriptor { name: "t2" vocabulary_size: 4 dimension: 0 }',
    "feature_descriptor { table_id: 7 input_shape: 1 }",
    "num_hosts: 0",
]
ENDINGS = ["  # note", "  # tpuemb: ignore[TE105] frozen", "  # tpuemb: ignore[TE403]", " #"]
HEADERS = [
    "",
    "# proto-message: TPUEmbeddingConfiguration\n",
    "# proto-file: tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto\n"
    "# proto-message: tensorflow.tpu.TPUEmbeddingConfiguration\n",
    "# Copyright 2025 The Authors.\n# Licensed under the Apache License 2.0.\n\n",
]
JSON_EDITS = [
    ('"constant": 0', '"constant": -1'),
    ('"mode": "TRAINING", ', ""),
    ('"numHosts": 1', '"numHosts": 1, "bogus": 2'),
    ('"dimension": 4', '"dimension": 0'),
    ('"tableId": 0', '"tableId": 3'),
    ('"mode": "TRAINING"', '"mode": "TRAINING", "mode": "INFERENCE"'),
]
SUPPRESS_TABLE = 'file = "configs/old.json"\nrules = ["TE105"]\nreason = "frozen"\n'
SUPPRESS_INLINE = '[{file = "configs/old.json", rules = ["TE105"], reason = "frozen"}]'
# Configuration layouts: (file name, text); {t} is the table's own settings.
LAYOUTS = [
    (".tpuemb.toml", 'ignore = ["TE410"]  # not ours\n'),
    (".tpuemb.toml", f"# the baseline\n[[suppress]]\n{SUPPRESS_TABLE}"),
    (".tpuemb.toml", f"suppress = {SUPPRESS_INLINE}\n"),
    ("pyproject.toml", '[project]\nname = "x"\n\n[tool.tpuemb]\nignore = ["TE410"]\n'),
    ("pyproject.toml", f"[tool.tpuemb]\nsuppress = {SUPPRESS_INLINE}\n\n[tool.ruff]\nx = 1\n"),
    ("pyproject.toml", f"[tool.tpuemb]\n[[tool.tpuemb.suppress]]\n{SUPPRESS_TABLE}[tool.ruff]\n"),
    ("pyproject.toml", '[tool]\ntpuemb.ignore = ["TE410"]\nruff.x = 1\n'),
    ("pyproject.toml", '[tool]\ntpuemb = {ignore = ["TE410"]}\n'),
    ("pyproject.toml", f"tool.tpuemb.suppress = {SUPPRESS_INLINE}\n"),
    ("pyproject.toml", '[tool.tpuemb.severity]\nTE105 = "error"\n[tool.other]\ny = 2\n'),
    ("pyproject.toml", '[project]\nname = "not configured"\n'),
]
BREAKAGES = ["ignore = [\n", "[tool\n", 'ignore = "TE105"\n', "x = 1\nx = 2\n"]
NAMES = ["configs/a.pbtxt", "configs/sub/b.txtpb", "configs/c.json", "configs/sub/d.json"]


class Chooser(Protocol):
    """Where the generator's choices come from (hypothesis's data, atheris's bytes)."""

    def integer(self, count: int) -> int:
        """A number in range(count)."""

    def text(self) -> str:
        """A short arbitrary string."""


class Project(NamedTuple):
    files: dict[str, bytes]  # relative to the project folder
    config: tuple[str, bytes] | None  # where (relative), and what


def _mutated_text(choose: Chooser) -> str:
    lines = BASE_TEXT.split("\n")
    for _ in range(choose.integer(5)):
        at = choose.integer(len(lines))
        operation = choose.integer(8)  # arbitrary text, which mostly breaks the file, least
        if operation < 2 and ": " in lines[at]:
            head = lines[at].split(": ", 1)[0]
            lines[at] = f"{head}: {VALUES[choose.integer(len(VALUES))]}"
        elif operation < 4:
            lines.insert(at, LINES[choose.integer(len(LINES))])
        elif operation < 6:
            lines[at] += ENDINGS[choose.integer(len(ENDINGS))]
        elif operation == 6:
            del lines[at]
        else:
            lines.insert(at, choose.text())
    return HEADERS[choose.integer(len(HEADERS))] + "\n".join(lines)


def _mutated_json(choose: Chooser) -> str:
    text = BASE_JSON
    for _ in range(choose.integer(3)):
        old, new = JSON_EDITS[choose.integer(len(JSON_EDITS))]
        text = text.replace(old, new, 1)
    return text


def _encoded(text: str, choose: Chooser) -> bytes:
    if choose.integer(3) == 0:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8", errors="surrogatepass")
    return b"\xef\xbb\xbf" + data if choose.integer(4) == 0 else data


def generate(choose: Chooser) -> Project:
    """A project of one to four configs and maybe a configuration file."""
    files: dict[str, bytes] = {}
    for name in NAMES:
        if choose.integer(2) or not files:
            text = _mutated_json(choose) if name.endswith(".json") else _mutated_text(choose)
            files[name] = _encoded(text, choose)
    layout = choose.integer(len(LAYOUTS) + 2)
    if layout >= len(LAYOUTS):
        return Project(files, None)
    name, text = LAYOUTS[layout]
    if choose.integer(8) == 0:
        text += BREAKAGES[choose.integer(len(BREAKAGES))]
    if choose.integer(3) == 0:
        text = text.replace("\n", "\r\n")
    folder = "configs/" if choose.integer(3) == 0 else ""
    return Project(files, (folder + name, text.encode()))


class Row(NamedTuple):
    """A finding as the JSON report gives it: what must survive the baseline unchanged."""

    file: str
    rule: str
    field: str
    message: str
    severity: str


def _run(paths: list[str], add_suppressions: bool) -> tuple[int, list[Row], str]:
    out, err = io.StringIO(), io.StringIO()
    options = CheckOptions(
        paths=paths, outputs=(Output("json", None),), add_suppressions=add_suppressions, jobs=1
    )
    code = execute(options, Streams(out, err))
    assert "internal error" not in err.getvalue(), err.getvalue()
    rows = json.loads(out.getvalue())["findings"] if out.getvalue() else []
    return code, [Row(*(r[k] for k in Row._fields)) for r in rows], err.getvalue()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _toml(data: bytes) -> Any:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def check_baseline(project: Project, root: Path) -> None:
    """Writes ``project`` under ``root``, runs the baseline from a sibling folder, and asserts its
    properties (AssertionError says which)."""
    home, elsewhere = root / "project", root / "elsewhere"
    for name, data in project.files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(data)
    elsewhere.mkdir(parents=True)
    if project.config is not None:
        (home / project.config[0]).write_bytes(project.config[1])
    paths = ["../project/" + name for name in project.files]
    cwd = Path.cwd()
    os.chdir(elsewhere)
    try:
        _properties(home, paths)
    finally:
        os.chdir(cwd)


def _properties(home: Path, paths: list[str]) -> None:
    before_code, before, _ = _run(paths, False)
    original = _snapshot(home)
    code, _, err = _run(paths, True)
    after_baseline = _snapshot(home)
    if before_code == 2:  # a configuration that cannot be read governs every file here
        assert (code, after_baseline) == (2, original), f"written despite an error: {err}"
        return
    for name, new in after_baseline.items():
        if not name.endswith(("pyproject.toml", ".tpuemb.toml")):
            continue
        old = original.get(name)
        assert _toml(new) is not None, f"{name}: the baseline broke it:\n{new.decode()}"
        if old is not None and old != new:
            assert new.count(b"\r\n") >= old.count(b"\r\n"), f"{name}: CRLF lost"
            assert new.count(b"\n") == new.count(b"\r\n") or b"\r\n" not in old, name
    again_code, again, _ = _run(paths, False)
    if code != 2:
        kept = Counter(r for r in before if not_baselined(r.rule) is not None)
        found = Counter(again)
        assert found == kept, f"invented: {sorted(found - kept)}\nlost: {sorted(kept - found)}"
        errors = any(r.severity == "error" for r in again)
        assert again_code == (1 if errors else 0), (again_code, again)
    second_code, _, second_err = _run(paths, True)
    assert _snapshot(home) == after_baseline, "a second --add-suppressions changed files"
    assert "added" not in second_err, second_err
    assert second_code == code, (second_code, code, second_err)
