"""`tpuemb compile` and `tpuemb explain`."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main

from .helpers import CONFIGS, DATA, SPEC

SPECS = DATA / "specs"


def test_compile_to_each_format(tmp_path: Path) -> None:
    runner = CliRunner()
    for to, suffix in (("binary", ".pb"), ("text", ".pbtxt")):
        out = tmp_path / f"config{suffix}"
        result = runner.invoke(
            main,
            ["compile", str(SPECS / "dict_feature_config_order.yaml"), "--to", to, "-o", str(out)],
        )
        assert (result.exit_code, result.stderr) == (0, "")
        expected = CONFIGS / f"dict_feature_config_order{suffix}"
        assert out.read_bytes() == expected.read_bytes()
    text = runner.invoke(main, ["compile", str(SPECS / "single_table_sgd.yaml")])
    assert text.stdout == (CONFIGS / "single_table_sgd.pbtxt").read_text()


def test_compile_refuses_a_spec_with_errors(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(SPEC.replace("dim: 16", "dim: 0"))
    out = tmp_path / "out.pbtxt"
    result = CliRunner().invoke(main, ["compile", str(spec), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert f"{spec}:5:5: TE701 [error]" in result.stderr
    assert result.stderr.endswith(f"tpuemb: error: {spec}: not compiled: the spec has errors\n")


def test_compile_text_and_json_specs(tmp_path: Path) -> None:
    spec = tmp_path / "spec.pbtxt"
    spec.write_text(
        "# proto-message: tpuemb.spec.EmbeddingSpec\n"
        "optimizer { sgd {} learning_rate { constant: 0.1 } }\n"
        'tables { name: "video" vocabulary_size: 1000 dim: 16 }\n'
        'features { name: "watched" table: "video" }\n'
        "topology { num_hosts: 1 cores_per_host: 8 per_replica_batch_size: 16 }\n"
    )
    result = CliRunner().invoke(main, ["compile", str(spec), "--to", "binary"])
    assert result.stdout_bytes == (CONFIGS / "single_table_sgd.pb").read_bytes()


def test_explain_a_spec() -> None:
    result = CliRunner().invoke(main, ["explain", str(SPECS / "shared_callable_lr.yaml")])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].endswith("(compiled as TensorFlow would)")
    assert lines[2].split()[:4] == ["table", "rows", "x", "dim"]
    rows = {line.split()[0]: line for line in lines[4:8]}
    assert "tag 0 (lr_warmup)" in rows["a"] and "tag 0 (lr_warmup)" in rows["b"]
    assert "tag 1 (lr_decay)" in rows["c"] and " 0.25 " in rows["d"]
    assert lines[-1] == "mode training, 1 host, 8 cores"


def test_explain_a_config_with_clipping_and_decay() -> None:
    result = CliRunner().invoke(main, ["explain", str(CONFIGS / "quantization_clipping_decay.pb")])
    row = result.stdout.splitlines()[4]
    assert row.split()[:4] == ["q", "100", "x", "4"]
    assert "[-1.0, 1.0]" in row and "[-inf, 5.0]" in row and "0.01 x lr" in row
    assert "enabled" in row
