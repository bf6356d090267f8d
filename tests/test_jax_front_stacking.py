"""TE676-TE679 and ``fail_on_excess_padding`` end to end: `lint_jax` / `compile_jax` on stand-in
objects, and `tpuemb check` / `compile --target jax` on the same settings written in a spec file
(YAML and text format), with and without ``--tpu`` (which adds nothing to a JAX spec).
tests/test_jax_front_oracle_stacking.py holds each verdict against the library itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.jax_objects import ArrayRate, FeatureSpec, SGDOptimizerSpec, TableSpec, codes
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError
from tpuemb_cli.jax import compile_jax, lint_jax, spec_from_jax

SPEC = """\
jax:
  global_device_count: 8
  num_sc_per_device: 4
{jax}
tables:
  - name: a
    vocabulary_size: 1000
    dim: {a_dim}
    combiner: sum
    jax:
      stack: {stack}
      optimizer:
        type: SGDOptimizerSpec
        learning_rate: {{constant: 0.1}}
{unhashable}
  - name: b
    vocabulary_size: 1000
    dim: 20
    combiner: sum
{quantization}
    jax:
      stack: {stack}
      optimizer:
        type: SGDOptimizerSpec
        learning_rate: {{constant: 0.1}}
features:
  - {{name: fa, table: a, input_shape: [128, 1], output_shape: [{fa_rows}, {a_dim}]}}
  - {{name: fb, table: b, input_shape: [128, 1], output_shape: [128, 20]}}
"""


def _spec(
    tmp_path: Path,
    *,
    jax: str = "",
    a_dim: int = 20,
    stack: str = "ab",
    unhashable: bool = False,
    quantized: bool = False,
    fa_rows: int = 128,
) -> Path:
    path = tmp_path / "model.spec.yaml"
    path.write_text(
        SPEC.format(
            jax=jax,
            a_dim=a_dim,
            stack=stack,
            unhashable="        unhashable: [learning_rate]" if unhashable else "",
            quantization=(
                "    quantization: {num_buckets: 256, lower: -1, upper: 1}" if quantized else ""
            ),
            fa_rows=fa_rows,
        )
    )
    return path


def _check(path: Path) -> tuple[int, str, str]:
    """`tpuemb check --format concise` on ``path``; the same with --tpu, or the test fails."""
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--format", "concise", str(path)])
    with_tpu = runner.invoke(main, ["check", "--format", "concise", "--tpu", "v5p", str(path)])
    assert (with_tpu.exit_code, with_tpu.stdout, with_tpu.stderr) == (
        result.exit_code,
        result.stdout,
        result.stderr,
    )
    return result.exit_code, result.stdout, result.stderr


def _compile(path: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["compile", "--target", "jax", str(path)])
    return result.exit_code, result.stdout, result.stderr


# --- a: an optimizer the library cannot hash -------------------------------------------------


def _rated(rate: object, **table: object) -> list[FeatureSpec]:
    return [
        FeatureSpec("fa", TableSpec("a", optimizer=SGDOptimizerSpec(rate), **table)),  # type: ignore[arg-type]
        FeatureSpec("fb", TableSpec("b", optimizer=SGDOptimizerSpec(rate))),
    ]


def test_an_array_learning_rate_is_recorded_and_refused_when_stacked() -> None:
    spec = spec_from_jax(_rated(ArrayRate(0.1)), global_device_count=8, num_sc_per_device=4)
    assert list(spec.tables[0].jax.optimizer.unhashable) == ["learning_rate"]
    assert spec.tables[0].jax.optimizer.learning_rate.constant == pytest.approx(0.1)
    assert codes(_rated(ArrayRate(0.1)), auto_stack=True) == ["TE676", "TE676"]
    assert codes(_rated(ArrayRate(0.1)), stacks={"s": ["a"]}) == ["TE676"]
    assert codes(_rated(ArrayRate(0.1))) == []  # alone: the library does not hash it
    assert codes(_rated(0.1), auto_stack=True) == []
    with pytest.raises(JaxStackingError, match=r"cannot hash \(learning_rate"):
        compile_jax(
            _rated(ArrayRate(0.1)), global_device_count=8, num_sc_per_device=4, auto_stack=True
        )
    compile_jax(_rated(ArrayRate(0.1)), global_device_count=8, num_sc_per_device=4)


def test_an_unhashable_optimizer_in_a_spec_file(tmp_path: Path) -> None:
    path = _spec(tmp_path, unhashable=True)
    code, out, err = _check(path)
    assert (code, err) == (1, "")
    assert out == (
        f'{path}:15:22: TE676 [error] table "a"\'s optimizer SGDOptimizerSpec holds values '
        "Python cannot hash (learning_rate: an array, e.g. jnp.array(0.1)), and stack_tables "
        'compares the optimizers of its stack "ab" by their hashes: it raises TypeError '
        "(unhashable type)\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )
    code, out, err = _compile(path)
    assert (code, out) == (1, "")
    assert err.endswith(f"tpuemb: error: {path}: not compiled: the spec has errors\n")
    assert "TE676" in err


# --- b: what stacking drops --------------------------------------------------------------------


def test_stacking_drops_a_tables_quantization_and_suggested_buffer() -> None:
    class Quantization:
        num_buckets, min_value, max_value = 256, -1.0, 1.0

    def build() -> list[FeatureSpec]:
        table = TableSpec(
            "a", quantization_config=Quantization(), suggested_coo_buffer_size_per_device=4096
        )
        return [
            FeatureSpec("fa", table),
            FeatureSpec("fb", TableSpec("b", embedding_dim=32), output_shape=(128, 32)),
        ]

    found = lint_jax(build(), global_device_count=8, num_sc_per_device=4, auto_stack=True)
    assert [(f.rule, f.path) for f in found] == [
        ("TE677", ("tables", 0, "jax", "suggested_coo_buffer_size_per_device")),
        ("TE677", ("tables", 0, "quantization")),
    ]
    assert 'auto_stack_tables puts it in stack "a" (alone in it)' in found[1].message
    assert codes(build(), stacks={"s": ["a"]}) == ["TE677", "TE677"]
    assert codes(build()) == []  # prepare_feature_specs_for_training keeps both


def test_a_quantized_table_stacked_in_a_spec_file(tmp_path: Path) -> None:
    path = _spec(tmp_path, quantized=True)
    code, out, err = _check(path)
    assert (code, err) == (0, "")
    assert out == (
        f'{path}:20:5: TE677 [warning] table "b" is quantized, but stack_tables puts it in '
        'stack "ab" with no quantization_config (jax-tpu-embedding 0.1.0; 0.2.0 keeps it): its '
        "lookups and training are in full precision, without a word\n"
        "Found 1 warning in 1 file (1 file checked).\n"
    )


# --- c and d: excess padding -------------------------------------------------------------------


def _padded() -> list[FeatureSpec]:
    return [
        FeatureSpec("fa", TableSpec("a", embedding_dim=8), output_shape=(128, 8)),
        FeatureSpec("fb", TableSpec("b", embedding_dim=20), output_shape=(128, 20)),
    ]


def test_excess_padding_is_a_warning_and_with_fail_on_excess_padding_an_error() -> None:
    (warning,) = lint_jax(
        _padded(), global_device_count=8, num_sc_per_device=4, stacks={"ab": ["a", "b"]}
    )
    # 1,000 rows pad to 1,024 (8 x 32 SparseCores); a pads 8 -> 24: 16 x 1,024 values.
    assert (warning.rule, warning.path) == ("TE678", ("tables", 0, "jax", "stack"))
    assert (
        "(padded embedding dimensions [8, 24]) to 24 columns: 16,384 of its 49,152 values "
        "(33.3%) are padding beyond each table's own, 65,536 bytes in its parameters"
    ) in warning.message
    for fail in (True, ["ab"]):
        (error,) = lint_jax(
            _padded(),
            global_device_count=8,
            num_sc_per_device=4,
            stacks={"ab": ["a", "b"]},
            fail_on_excess_padding=fail,
        )
        assert error.rule == "TE696" and "Excess padding: 16384 values." in error.message
        with pytest.raises(JaxStackingError, match="Excess padding: 16384 values"):
            compile_jax(
                _padded(),
                global_device_count=8,
                num_sc_per_device=4,
                stacks={"ab": ["a", "b"]},
                fail_on_excess_padding=fail,
            )
    # A stack named by the library itself: the flag for the call without a name.
    assert codes(_padded(), stacks={None: ["a", "b"]}, fail_on_excess_padding=[None]) == ["TE696"]
    assert codes(_padded(), stacks={"ab": ["a", "b"]}, fail_on_excess_padding=["x"]) == ["TE678"]
    assert codes(_padded(), auto_stack=True) == []  # auto-stacking keeps widths apart


def test_excess_padding_in_a_spec_file(tmp_path: Path) -> None:
    path = _spec(tmp_path, a_dim=8)
    code, out, err = _check(path)
    assert (code, err) == (0, "")
    assert out.startswith(f"{path}:11:7: TE678 [warning] stack \"ab\" pads its tables ['a', 'b']")
    assert out.endswith("Found 1 warning in 1 file (1 file checked).\n")
    failing = _spec(tmp_path, a_dim=8, jax="  fail_on_excess_padding: [ab]")
    code, out, err = _check(failing)
    assert (code, err) == (1, "")
    assert f'{failing}:11:7: TE696 [error] stack "ab" pads its tables' in out
    assert "Excess padding: 16384 values." in out
    code, out, err = _compile(failing)
    assert (code, out) == (1, "") and "not compiled: the spec has errors" in err


# --- e: output shapes the input batch does not match --------------------------------------------


@pytest.mark.parametrize(
    ("input_shape", "output_shape", "found"),
    [
        ((128, 1), (128, 16), []),
        ((128, 5), (128, 16), []),  # five ids a sample, combined: one row each
        ((128, 5), (640, 16), ["TE679"]),  # a sequence as rows
        ((128, 5), (128, 5, 16), ["TE679"]),  # a sequence as a dimension
        ((128, 1), (64, 16), ["TE679"]),
        ((128, 1), (128, 1, 16), ["TE679"]),
        ((128,), (128, 16), []),  # ragged input: its batch alone
    ],
)
def test_output_shapes_the_input_batch_does_not_match(
    input_shape: tuple[int, ...], output_shape: tuple[int, ...], found: list[str]
) -> None:
    feature = FeatureSpec("f", TableSpec("t"), input_shape, output_shape)
    assert codes([feature]) == found


def test_an_output_batch_in_a_spec_file(tmp_path: Path) -> None:
    path = _spec(tmp_path, stack='""', fa_rows=256)
    code, out, err = _check(path)
    assert (code, err) == (1, "")
    assert out == (
        f'{path}:27:49: TE679 [error] feature "fa" has input_shape [128, 1] and output_shape '
        "[256, 20]: the library lays out 256 rows for it in its stack (the output's samples), "
        "but its input preprocessing writes 128, one a sample of the input (it combines a "
        "sample's ids into one row: there is no sequence output): the features after it in its "
        "stack read other features' rows or zeros, and so does it\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )
