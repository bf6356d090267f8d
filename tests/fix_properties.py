"""What --fix and --diff must keep, on generated configs full of fixable findings; shared by the
hypothesis test (tests/test_fix_properties.py) and the atheris target (fuzz/fuzz_fix.py).

A config is drawn from choices -- tables with dynamic learning-rate tags that leave gaps,
reversed clipping ranges, weight-decay multipliers with no decay, FTRL's deprecated flag, unused
suppressions -- and written with CRLF or LF, a byte-order mark or none, comments holding
characters some tools take for line breaks, a final newline or none; as text or JSON. Then:
- the file --fix writes parses, with no parse problem it did not have;
- a second --fix changes nothing;
- --diff applied by ``git apply`` gives, byte for byte, what --fix writes;
- no finding is invented, and only findings with a fix disappear.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.engine import Engine
from tpuemb_cli.load import load_bytes
from tpuemb_cli.model.findings import Finding

# A draw: the number of choices -> one of them (hypothesis' data.draw, atheris' data provider).
Draw = Callable[[int], int]
ODD = ["", "\f", "\u2028", "\x85", "\v", "\r", "\t", "\u00e9"]
ENGINE = Engine()


class Wrapped(float):
    """A wrapped float (FloatValue): ``{ value: 3 }`` in the text format, a number in JSON."""


def draw_config(draw: Draw) -> tuple[str, bytes]:
    """A file name and content drawn with ``draw``."""
    tables = []
    for index in range(1 + draw(5)):
        params: dict[str, object] = {"adagrad": {}} if draw(3) else {"ftrl": {"lr_power": -0.5}}
        if "ftrl" in params and draw(2):
            params["ftrl"] = {"lr_power": -0.5, "allow_zero_accumulator": True}
        params["learning_rate"] = (
            {"dynamic": {"tag": draw(6)}} if draw(2) else {"constant": 0.1 * (1 + draw(3))}
        )
        if draw(2):
            params["multiply_weight_decay_factor_by_learning_rate"] = True
        if draw(3) == 0:
            low, high = (3, -3) if draw(2) else (-3, 3)
            params["gradient_clipping_limits"] = {"lower": Wrapped(low), "upper": Wrapped(high)}
        tables.append(
            {
                "name": f"t{index}",
                "vocabulary_size": 10,
                "dimension": 4,
                "optimization_parameters": params,
            }
        )
    config = {
        "table_descriptor": tables,
        "mode": "TRAINING",
        "num_hosts": 1,
        "num_tensor_cores": 8,
        "feature_descriptor": [{"table_id": i, "input_shape": [4]} for i in range(len(tables))],
    }
    if draw(4) == 0:
        name, text = "model.json", json.dumps(config, indent=2 if draw(2) else None)
    else:
        name, text = "model.pbtxt", _text(config, draw)
    if draw(3) == 0:
        text = text.rstrip("\n")
    elif not text.endswith("\n"):
        text += "\n"
    if draw(3) == 0:
        text = text.replace("\n", "\r\n")
    data = text.encode()
    return name, b"\xef\xbb\xbf" + data if draw(4) == 0 else data


def _text(value: object, draw: Draw, indent: str = "") -> str:
    """``value`` in the text format, one field a line, with comments and odd characters."""
    assert isinstance(value, dict)
    lines = []
    for key, item in value.items():
        for element in item if isinstance(item, list) else [item]:
            if isinstance(element, Wrapped):
                lines.append(f"{indent}{key} {{ value: {element} }}\n")
            elif isinstance(element, dict):
                body = _text(element, draw, indent + "  ")
                lines.append(f"{indent}{key} {{\n{body}{indent}}}\n")
            else:
                rendered = (
                    "true"
                    if element is True
                    else element
                    if isinstance(element, str) and key == "mode"
                    else json.dumps(element)
                )
                lines.append(f"{indent}{key}: {rendered}\n")
            comment = draw(len(ODD) + 4)
            if comment < len(ODD):
                lines.append(f"{indent}# note{ODD[comment]}here\n")
            elif comment == len(ODD):
                lines.append(f"{indent}# tpuemb: ignore[TE105] left over\n")
    return "".join(lines)


def _keys(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.rule, f.field, f.message) for f in findings}


def _lint(name: str, data: bytes) -> tuple[bool, list[Finding], set[tuple[str, str]]]:
    document = load_bytes(data, name)
    problems = {(p.rule, p.message) for p in document.problems}
    return document.message is not None, ENGINE.lint(document), problems


def check(folder: Path, name: str, data: bytes, unsafe: bool) -> None:
    """Asserts the properties above for ``data`` written as ``folder/name`` (run in ``folder``:
    the diff names the file as a repository would, relative)."""
    previous = Path.cwd()
    os.chdir(folder)
    try:
        _check(folder, name, data, unsafe)
    finally:
        os.chdir(previous)


def _check(folder: Path, name: str, data: bytes, unsafe: bool) -> None:
    path = folder / name
    path.write_bytes(data)
    fixes = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    runner = CliRunner()
    diff = runner.invoke(
        main, ["check", "--isolated", "--diff", *fixes[1:], name], catch_exceptions=False
    )
    assert diff.exit_code in (0, 1), diff.output
    assert path.read_bytes() == data, "--diff wrote the file"
    fixed = runner.invoke(main, ["check", "--isolated", *fixes, name], catch_exceptions=False)
    assert "Traceback" not in fixed.output
    written = path.read_bytes()
    again = runner.invoke(main, ["check", "--isolated", *fixes, name], catch_exceptions=False)
    assert path.read_bytes() == written, "a second --fix changed the file"
    assert "fixed" not in again.stderr, again.stderr

    parsed, before, problems = _lint(name, data)
    parsed_after, after, problems_after = _lint(name, written)
    if parsed:
        assert parsed_after, "the fixed file does not parse"
        assert problems_after <= problems, problems_after - problems
    invented = _keys(after) - _keys(before)
    assert not invented, invented
    fixable = _keys([f for f in before if f.autofix and (f.autofix.safe or unsafe)])
    lost = _keys(before) - _keys(after) - fixable
    assert not lost, lost

    if written == data:
        assert diff.stdout_bytes == b"", diff.stdout
        return
    path.write_bytes(data)
    patch = folder / "fix.diff"
    patch.write_bytes(diff.stdout_bytes)
    applied = subprocess.run(
        ["git", "apply", "--unsafe-paths", str(patch.name)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert applied.returncode == 0, (applied.stderr, diff.stdout)
    assert path.read_bytes() == written, "git apply of --diff differs from --fix"
    patch.unlink()
