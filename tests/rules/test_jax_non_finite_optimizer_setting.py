"""jax-non-finite-optimizer-setting on jax-tpu-embedding 0.2.0's EmbeddingSpecProto (its optimizer
fields) and on a spec made from the library's objects (issue 36: both passed `check`), with the
TensorFlow rules' words."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main

COMPILE = Path(__file__).parent.parent / "data" / "jax" / "compile"
PROTO = (COMPILE / "explicit.library-0.2.0.pbtxt").read_text()
SPEC = (COMPILE / "explicit.spec.textproto").read_text()


def _check(path: Path, text: str, *options: str) -> tuple[int, str]:
    path.write_text(text)
    result = CliRunner().invoke(main, ["check", "--select", "TE672", str(path), *options])
    assert result.stderr == ""
    return result.exit_code, result.stdout.replace(str(path), "PATH")


@pytest.mark.parametrize("tpu", [(), ("--tpu", "v5p-8")])
def test_a_nan_rate_and_an_infinite_setting_in_a_proto(
    tmp_path: Path, tpu: tuple[str, ...]
) -> None:
    text = PROTO.replace("learning_rate: 0.05", "learning_rate: nan").replace(
        "value: 0.1\n", "value: inf\n"
    )
    assert _check(tmp_path / "stacked.pbtxt", text, *tpu) == (
        1,
        'PATH:78:7: TE672 [error] table "b" of stack "b": the constant learning rate nan is not a '
        "finite number; every embedding it updates becomes NaN\n"
        'PATH:79:7: TE672 [error] table "b" of stack "b": `initial_accumulator_value` is inf; '
        "optimizer settings must be finite numbers\n"
        "Found 2 errors in 1 file (1 file checked).\n",
    )


def test_an_infinite_rate_and_a_negative_infinite_setting_in_a_spec(tmp_path: Path) -> None:
    text = SPEC.replace("constant: 0.1\n", "constant: -inf\n", 1).replace(
        "value: 0.1\n", "value: -inf\n"
    )
    assert _check(tmp_path / "jax.textproto", text) == (
        1,
        'PATH:11:9: TE672 [error] table "a": the constant learning rate -inf is not a finite '
        "number; every embedding it updates becomes NaN\n"
        'PATH:31:7: TE672 [error] table "b": `initial_accumulator_value` is -inf; optimizer '
        "settings must be finite numbers\n"
        "Found 2 errors in 1 file (1 file checked).\n",
    )


@pytest.mark.parametrize("text", [PROTO, SPEC])
def test_finite_settings_pass(tmp_path: Path, text: str) -> None:
    assert _check(tmp_path / "x.textproto", text) == (0, "All checks passed (1 file checked).\n")


@pytest.mark.parametrize(("yaml", "shown"), [(".nan", "nan"), (".inf", "inf"), ("-.INF", "-inf")])
def test_yaml_s_own_non_finite_numbers_are_read_and_judged(
    tmp_path: Path, yaml: str, shown: str
) -> None:
    # Issue 36 review: YAML's `.nan` was refused as "a bare JSON number" (TE007, JSON's words).
    source = tmp_path / "spec.textproto"
    source.write_text(SPEC)
    converted = CliRunner().invoke(main, ["convert", "--to", "yaml", str(source)])
    text = converted.stdout.replace("constant: 0.1\n", f"constant: {yaml}\n", 1)
    exit_code, stdout = _check(tmp_path / "jax.yaml", text)
    assert exit_code == 1
    assert stdout.splitlines() == [
        f'PATH:10:9: TE672 [error] table "a": the constant learning rate {shown} is not a finite '
        "number; every embedding it updates becomes NaN",
        "Found 1 error in 1 file (1 file checked).",
    ]


def test_a_bare_non_finite_json_number_is_still_json_s_finding(tmp_path: Path) -> None:
    source = tmp_path / "spec.textproto"
    source.write_text(SPEC)
    converted = CliRunner().invoke(main, ["convert", "--to", "json", str(source)])
    text = converted.stdout.replace('"constant": 0.1', '"constant": NaN', 1)
    path = tmp_path / "jax.json"
    path.write_text(text)
    result = CliRunner().invoke(main, ["check", "--select", "TE007", str(path)])
    assert "as a bare JSON number" in result.stdout
