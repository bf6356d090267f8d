"""The command line, end to end: exit code, stdout and stderr of each command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli import __version__
from tpuemb_cli.cli import main
from tpuemb_cli.rules import all_rules

from .helpers import CLEAN, CONFIGS, OPTIMS

BAD = 'table_descriptor {\n  name: "a"\n  vocabulary_size: 0\n}\nmode: TRAINING\n'


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    path = tmp_path / "clean.pbtxt"
    path.write_text(CLEAN)
    return path


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.pbtxt"
    path.write_text(BAD)
    return path


def test_clean_file(clean: Path) -> None:
    result = invoke("check", str(clean))
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "All checks passed (1 file checked).\n",
        "",
    )


def test_findings_exit_1_with_exact_text(bad: Path) -> None:
    result = invoke("check", str(bad))  # not a terminal: the concise format
    assert result.exit_code == 1
    assert result.stderr == ""
    # Absent fields point at the table that lacks them (1:1); findings sort by position, then code.
    assert result.stdout == (
        f'{bad}:1:1: TE403 [error] table 0 ("a") has `dimension` 0 (or not set); it needs at '
        "least 1 column\n"
        f'{bad}:1:1: TE405 [error] table 0 ("a") has no `optimization_parameters`, but the '
        "config trains it\n"
        f"{bad}:1:1: TE410 [error] the config has no `feature_descriptor` and no positive "
        "`batch_size_per_tensor_core`, so the shapes of its activations cannot be known\n"
        f"{bad}:1:1: TE502 [error] `num_hosts` is 0 (or not set); the config needs at least one "
        "of the hosts it runs on\n"
        f"{bad}:1:1: TE502 [error] `num_tensor_cores` is 0 (or not set); the config needs at "
        "least one of the TPU tensor cores it runs on\n"
        f'{bad}:3:3: TE403 [error] table 0 ("a") has `vocabulary_size` 0 (or not set); it needs '
        "at least 1 row\n"
        "Found 6 errors in 1 file (1 file checked).\n"
    )


def test_warnings_only_exit_0(tmp_path: Path) -> None:
    path = tmp_path / "w.pbtxt"
    path.write_text(CLEAN.replace("constant: 0.05", "constant: 0"))
    result = invoke("check", str(path))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "Found 1 warning in 1 file (1 file checked)."


def test_parse_error_counts_as_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.pbtxt"
    path.write_text("mode: TRAINING\nnum_hosts {\n")
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert result.stdout == (
        f"{path}:2:11: TE001 [error] expected `:` after `num_hosts`, found `{{`\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )


def test_json_output_contract(bad: Path, tmp_path: Path) -> None:
    binary = tmp_path / "b.pb"
    binary.write_bytes((CONFIGS / "custom_optimizer.pb").read_bytes())
    result = invoke("check", "--format", "json", str(bad), str(binary))
    assert result.exit_code == 1 and result.stderr == ""
    report = json.loads(result.stdout)
    assert report["version"] == 1
    assert set(report["summary"]) == {
        "files_checked",
        "files_with_findings",
        "errors",
        "warnings",
        "infos",
    }
    assert report["summary"]["files_checked"] == 2
    first = report["findings"][0]
    assert list(first) == [
        "file",
        "rule",
        "name",
        "severity",
        "message",
        "help",
        "field",
        "line",
        "column",
        "end_line",
        "end_column",
    ]
    by_rule = {(f["file"], f["rule"]): f for f in report["findings"]}
    vocab = by_rule[(str(bad), "TE403")]
    assert (vocab["line"], vocab["column"], vocab["end_line"], vocab["end_column"]) == (3, 3, 3, 21)
    assert vocab["field"] == "table_descriptor[0].vocabulary_size"
    binary_finding = by_rule[(str(binary), "TE201")]
    assert binary_finding["line"] is None and binary_finding["end_column"] is None
    assert binary_finding["field"] == "table_descriptor[0].optimization_parameters"


def test_directory_is_walked_for_config_extensions(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.textproto").write_text(CLEAN)
    (tmp_path / "b.json").write_text('{"mode": "TRAINING"}')
    (tmp_path / "notes.txt").write_text("not a config")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.pbtxt").write_text("garbage {")
    result = invoke("check", "--format", "json", str(tmp_path))
    report = json.loads(result.stdout)
    assert report["summary"]["files_checked"] == 2
    assert {f["file"] for f in report["findings"]} == {str(tmp_path / "b.json")}


def test_missing_file_exit_2_and_others_still_checked(clean: Path) -> None:
    result = invoke("check", "does/not/exist.pbtxt", str(clean))
    assert result.exit_code == 2
    assert result.stderr == "tpuemb: error: does/not/exist.pbtxt: no such file or directory\n"
    # not "All checks passed": one input was not checked at all
    assert result.stdout == "No findings (1 file checked; 1 input could not be read).\n"


def test_summary_with_findings_counts_unreadable_inputs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pbtxt"
    bad.write_text("num_hosts: -1\n")
    result = invoke("check", "--format", "concise", "missing.pbtxt", str(bad))
    assert result.exit_code == 2
    assert result.stdout.splitlines()[-1].endswith(
        "in 1 file (1 file checked; 1 input could not be read)."
    )


def test_empty_directory_is_nothing_to_check(tmp_path: Path) -> None:
    # As ruff does of a folder with no Python file: said, and exit 0 (issue 38: the exit-code
    # table and the behaviour disagreed -- a folder of other files exited 0, an empty one 2).
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == "No files checked (1 input skipped).\n"
    assert result.stderr.startswith(
        f"tpuemb: {tmp_path}: skipped: no file tpuemb reads in this folder ("
    )


def test_bad_option_exit_2() -> None:
    result = invoke("check", "--format", "xml", "x.pbtxt")
    assert result.exit_code == 2
    assert "Invalid value for '--format'" in result.stderr
    result = invoke("check", "--type", "GraphDeff", "x.pbtxt")
    assert result.exit_code == 2
    assert (
        "Invalid value for '--type': unknown message type 'GraphDeff'; did you mean `GraphDef`? "
        "(known: TPUEmbeddingConfiguration, OptimizationParameters, EmbeddingSpec, GraphDef, "
        "SavedModel, SparseCoreTableLayouts, EmbeddingSpecProto, KerasModel, TorchRecSpec)\n"
    ) in result.stderr


def test_file_over_size_limit_refused(clean: Path) -> None:
    result = invoke("check", "--max-file-size", "10", str(clean))
    assert result.exit_code == 2
    assert "larger than the limit of 10 bytes" in result.stderr


def test_stdin_with_filename() -> None:
    result = invoke("check", "-", "--stdin-filename", "configs/x.json", stdin=b'{"mode": 5}')
    assert result.exit_code == 1
    assert "configs/x.json:1:2: TE308 [error] `mode` is 5, which is not a value of" in result.stdout


def test_stdin_content_detection() -> None:
    result = invoke("check", "-", stdin=CLEAN.encode())
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_type_option_and_header(tmp_path: Path) -> None:
    path = tmp_path / "opt.pbtxt"
    path.write_text("adam { beta1: 1 epsilon: 1e-7 }\n")
    result = invoke("check", "--type", "OptimizationParameters", str(path))
    assert result.exit_code == 1
    assert "TE202" in result.stdout
    path.write_text("# proto-message: tensorflow.tpu.OptimizationParameters\nadam { beta1: 1 }\n")
    assert "TE202" in invoke("check", str(path)).stdout


def test_convert_text_to_binary_reproduces_tensorflow_bytes(tmp_path: Path) -> None:
    out = tmp_path / "x.pb"
    source = CONFIGS / "multi_table_mixed_optimizers.pbtxt"
    result = invoke("convert", str(source), "--to", "binary", "-o", str(out))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert out.read_bytes() == source.with_suffix(".pb").read_bytes()


_FLT_MAX_CONFIG = """\
table_descriptor {
  name: "t"
  vocabulary_size: 100
  dimension: 8
  num_features: 1
  optimization_parameters {
    learning_rate { constant: 3.4028235e+38 }
    clipping_limits { lower { value: -3.4028235e+38 } upper { value: 3.4028235e+38 } }
    stochastic_gradient_descent {}
  }
}
mode: TRAINING
num_hosts: 1
num_tensor_cores: 8
batch_size_per_tensor_core: 4
"""


@pytest.mark.parametrize("to", ["json", "yaml"])
def test_convert_writes_the_largest_32_bit_float_so_that_it_reads_back(
    tmp_path: Path, to: str
) -> None:
    """protobuf prints FLT_MAX as 3.4028235e+38, a double above it that its own JSON parser
    refuses ("Float value too large"); convert writes the double FLT_MAX is, in a plain float
    field and in a FloatValue, and the output converts back to the same bytes."""
    source = tmp_path / "c.pbtxt"
    source.write_text(_FLT_MAX_CONFIG)
    binary = invoke("convert", str(source), "--to", "binary")
    assert binary.exit_code == 0, binary.output
    written = tmp_path / f"c.{to}"
    result = invoke("convert", str(source), "--to", to, "-o", str(written))
    assert result.exit_code == 0, result.output
    assert written.read_text().count("3.4028234663852886e+38") == 3
    back = invoke("convert", str(written), "--to", "binary")
    assert back.exit_code == 0, back.output
    assert back.stdout_bytes == binary.stdout_bytes
    # As protobuf writes it: refused as protobuf's JSON parser refuses it, and said why.
    written.write_text(written.read_text().replace("3.4028234663852886e+38", "3.4028235e+38"))
    found = json.loads(invoke("check", "--format", "json", str(written)).stdout)["findings"]
    too_large = [f for f in found if f["rule"] == "TE005"]
    assert len(too_large) == 3, found
    assert "at most 3.4028234663852886e+38" in too_large[0]["message"]


def test_convert_binary_to_text_on_stdout() -> None:
    source = OPTIMS / "adam_custom.pb"
    result = invoke("convert", str(source), "--to", "text", "--type", "OptimizationParameters")
    assert result.exit_code == 0
    # Text of a type other than the config's says which it is, so that it reads back as that.
    header = "# proto-message: tensorflow.tpu.OptimizationParameters\n"
    assert result.stdout == header + source.with_suffix(".pbtxt").read_text()


def test_convert_refuses_a_file_that_does_not_parse_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "typo.pbtxt"
    path.write_text("mode: TRAINING\nnum_hostz: 2\n")
    out = tmp_path / "out.json"
    result = invoke("convert", str(path), "--to", "json", "-o", str(out))
    assert result.exit_code == 1
    assert not out.exists()
    assert f"{path}:2:1: TE002 [error]" in result.stderr
    assert result.stderr.endswith(
        f"tpuemb: error: {path}: not converted: the input does not parse cleanly\n"
    )


def test_convert_refuses_to_drop_an_opaque_xla_program(tmp_path: Path) -> None:
    # user_defined_program.program holding an HLO module (field 1 = name "m") stays opaque.
    params = bytes([0xC2, 0x01, 0x05, 0x0A, 0x03, 0x0A, 0x01, ord("m")])
    path = tmp_path / "udp.pb"
    path.write_bytes(params)
    result = invoke("convert", str(path), "--to", "text", "--type", "OptimizationParameters")
    assert result.exit_code == 2
    assert "cannot represent" in result.stderr and "convert to binary instead" in result.stderr
    again = invoke("convert", str(path), "--to", "binary", "--type", "OptimizationParameters")
    assert again.exit_code == 0
    assert again.stdout_bytes == params


@pytest.mark.parametrize("to", ["text", "json"])
def test_convert_refuses_layouts_with_unknown_fields(tmp_path: Path, to: str) -> None:
    # SparseCore layouts have no float: they are written without being read back (issue 26:
    # reading back 60 MB of layouts took 35 s), and a field they do not declare, in a nested
    # message, is still refused.
    layouts = bytes([0x0A, 0x06, 0x0A, 0x01, ord("a"), 0xF8, 0x01, 0x05])
    path = tmp_path / "layouts.pb"
    path.write_bytes(layouts)
    result = invoke("convert", str(path), "--to", to, "--type", "SparseCoreTableLayouts")
    assert result.exit_code == 2
    assert "cannot represent" in result.stderr and "convert to binary instead" in result.stderr


def test_float_free_messages_are_not_read_back() -> None:
    from tpuemb_cli.load.encodings import ConversionError, lossless
    from tpuemb_cli.pb.layouts import SparseCoreTableLayouts
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters

    def read_back(message: object) -> None:
        read.append(message)

    read: list[object] = []
    layouts = SparseCoreTableLayouts()
    layouts.tables.add(table_name="a", stacked_table_name="a", unsharded_shape=[3, 8])
    assert lossless(b"out", layouts, read_back, "text") == b"out"
    assert read == []
    # Nor are floats other than NaN (the printers write them exactly), in fields, repeated
    # fields and maps.
    params = OptimizationParameters()
    params.learning_rate.constant = 0.5
    params.clipping_limits.lower.value = float("-inf")
    assert lossless(b"out", params, read_back, "text") == b"out"
    spec = EmbeddingSpec()
    table = spec.tables.add(name="t")
    table.jax.optimizer.learning_rate.constant = 0.1
    table.jax.optimizer.settings["beta_1"] = 0.9
    assert lossless(b"out", spec, read_back, "yaml") == b"out"
    assert read == []
    # A NaN in a map is read back too.
    table.jax.optimizer.settings["beta_1"] = float("nan")
    with pytest.raises(ConversionError):
        lossless(b"out", spec, read_back, "yaml")
    assert len(read) == 1
    read.clear()
    # A NaN can have a payload the text loses: read back (and here found to differ).
    params.learning_rate.constant = float("nan")
    with pytest.raises(ConversionError):
        lossless(b"out", params, read_back, "text")
    assert len(read) == 1


def test_rules_table() -> None:
    result = invoke("rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert any(line.startswith("TE407  table-id-out-of-range") for line in lines)
    assert len(lines) == len(all_rules()) + 1
    assert lines[0].split() == ["CODE", "NAME", "SEVERITY", "FIX", "SUMMARY"]


def test_rule_doc_by_code_and_name() -> None:
    by_code = invoke("rule", "te407")
    assert by_code.exit_code == 0
    assert by_code.stdout.startswith(
        "# TE407 table-id-out-of-range (error)\n\nA feature's table_id"
    )
    assert "## What TensorFlow does" in by_code.stdout
    assert invoke("rule", "table-id-out-of-range").stdout == by_code.stdout
    unknown = invoke("rule", "TE999")
    assert unknown.exit_code == 2 and "no rule 'TE999'" in unknown.stderr


def test_version() -> None:
    result = invoke("--version")
    assert (result.exit_code, result.stdout) == (0, f"tpuemb, version {__version__}\n")


def test_python_dash_m_and_no_traceback_on_internal_error(bad: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", "check", "--format", "json", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and result.stderr == ""
    assert json.loads(result.stdout)["summary"]["errors"] == 6


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("chek", "check"), ("explian", "explain"), ("difff", "diff"), ("serve", "server")],
)
def test_a_mistyped_command_gets_a_did_you_mean(typed: str, meant: str) -> None:
    # Issue 38: `tpuemb chek` suggested nothing, where a mistyped option does.
    result = CliRunner().invoke(main, [typed, "x"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"Error: No such command '{typed}'. Did you mean '{meant}'?"
    )


def test_a_command_like_nothing_known_gets_no_suggestion() -> None:
    result = CliRunner().invoke(main, ["xyz"])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        2,
        "Error: No such command 'xyz'.",
    )
    # What was typed is shown escaped, suggestion or not.
    result = CliRunner().invoke(main, ["chek\x1b[2J"])
    assert "\x1b" not in result.stderr and "chek\\x1b[2J" in result.stderr
