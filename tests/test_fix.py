"""--fix, --unsafe-fixes and --diff: minimal edits, nothing else touched, never a broken file."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main
from tpuemb_cli.load.encodings import text as textedit
from tpuemb_cli.model.edits import TextEdit

from .helpers import CONFIGS

BEFORE = """\
# Model A: three tables.   Comments and odd spacing must survive.
table_descriptor {
  name: "a"   # first
  vocabulary_size: 10 dimension: 4
  optimization_parameters {
    adagrad {}
    learning_rate { dynamic { tag: 2 } }  # tpuemb: ignore[TE105] left over
    multiply_weight_decay_factor_by_learning_rate: true
    gradient_clipping_limits { lower { value: 3 } upper { value: -3 } }
  }
}
table_descriptor {
  name: "b" vocabulary_size: 10 dimension: 4
  optimization_parameters {
    ftrl { lr_power: -0.5 allow_zero_accumulator: true }
    learning_rate { dynamic { tag: 5 } }
  }
}
table_descriptor {
  name: "c" vocabulary_size: 10 dimension: 4
  optimization_parameters { adagrad {} learning_rate { dynamic { tag: 2 } } }
}
mode: TRAINING num_hosts: 1 num_tensor_cores: 8
feature_descriptor { table_id: 0 input_shape: 4 }
feature_descriptor { table_id: 1 input_shape: 4 }
feature_descriptor { table_id: 2 input_shape: 4 }
"""

# Tags 2, 5, 2 become 0, 1, 0 (a and c still share one); the no-op flag, the deprecated field and
# the unused suppression go; every other byte stays.
AFTER_SAFE = """\
# Model A: three tables.   Comments and odd spacing must survive.
table_descriptor {
  name: "a"   # first
  vocabulary_size: 10 dimension: 4
  optimization_parameters {
    adagrad {}
    learning_rate { dynamic { tag: 0 } }
    gradient_clipping_limits { lower { value: 3 } upper { value: -3 } }
  }
}
table_descriptor {
  name: "b" vocabulary_size: 10 dimension: 4
  optimization_parameters {
    ftrl { lr_power: -0.5 }
    learning_rate { dynamic { tag: 1 } }
  }
}
table_descriptor {
  name: "c" vocabulary_size: 10 dimension: 4
  optimization_parameters { adagrad {} learning_rate { dynamic { tag: 0 } } }
}
mode: TRAINING num_hosts: 1 num_tensor_cores: 8
feature_descriptor { table_id: 0 input_shape: 4 }
feature_descriptor { table_id: 1 input_shape: 4 }
feature_descriptor { table_id: 2 input_shape: 4 }
"""
AFTER_UNSAFE = AFTER_SAFE.replace(
    "lower { value: 3 } upper { value: -3 }", "lower { value: -3.0 } upper { value: 3.0 }"
)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "model.pbtxt"
    path.write_text(BEFORE)
    return path


def test_safe_fixes_are_minimal_and_keep_everything_else(config: Path) -> None:
    result = invoke("check", "--fix", str(config))
    assert result.exit_code == 1  # the reversed clipping range is an error, and unsafe to fix
    assert config.read_text() == AFTER_SAFE
    assert result.stderr == "tpuemb: fixed 1 file\n"
    assert result.stdout.startswith(f"{config}:8:5: TE301 [error] the gradient clipping range")
    assert "fixable with `--fix`" not in result.stdout


def test_fix_is_idempotent(config: Path) -> None:
    invoke("check", "--fix", str(config))
    second = invoke("check", "--fix", str(config))
    assert config.read_text() == AFTER_SAFE
    assert second.stderr == ""


def test_unsafe_fixes_need_their_flag(config: Path) -> None:
    result = invoke("check", "--fix", "--unsafe-fixes", str(config))
    assert config.read_text() == AFTER_UNSAFE
    assert (result.exit_code, result.stdout) == (
        0,
        "Found 5 findings (5 fixed, 0 remaining); 1 file checked.\n",
    )


def test_diff_writes_nothing_and_exits_1(config: Path) -> None:
    result = invoke("check", "--diff", str(config))
    assert result.exit_code == 1
    assert config.read_text() == BEFORE
    assert result.stdout.startswith(f"--- {config}\n+++ {config}\n@@ -4,21 +4,20 @@\n")
    assert "-    multiply_weight_decay_factor_by_learning_rate: true\n" in result.stdout
    assert "+    learning_rate { dynamic { tag: 0 } }\n" in result.stdout
    config.write_text(AFTER_UNSAFE)
    clean = invoke("check", "--diff", str(config))
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_a_fix_that_would_not_parse_is_not_applied(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An editor bug that would delete a closing brace: the re-parse catches it.
    monkeypatch.setattr(textedit, "text_edits", lambda fix, source: [TextEdit(0, 0, "}")])
    result = invoke("check", "--fix", str(config))
    assert config.read_text() == BEFORE
    # Said, and no longer offered as fixable.
    assert result.stderr.endswith(
        "model.pbtxt: 4 fixes not made (TE102, TE209, TE305, TE902): each would break the file "
        "or add an error it does not have now\n"
    )
    assert "fixable" not in result.stdout


def test_a_fix_that_would_add_an_error_is_not_applied(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = BEFORE.index("dimension: 4") + len("dimension: ")
    monkeypatch.setattr(
        textedit, "text_edits", lambda fix, source: [TextEdit(broken, broken + 1, "0")]
    )
    invoke("check", "--fix", str(config))
    assert config.read_text() == BEFORE


def test_failed_write_leaves_the_original_and_goes_on(tmp_path: Path, config: Path) -> None:
    other = tmp_path / "other.pbtxt"
    other.write_text(BEFORE)
    real_replace = Path.replace
    calls = []

    def fail_first(self: Path, target: Path) -> Path:
        calls.append(target)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return real_replace(self, target)

    with mock.patch.object(Path, "replace", fail_first):
        result = invoke("check", "--fix", str(config), str(other))
    assert result.exit_code == 2
    assert f"tpuemb: {config}: not fixed: cannot write: no space left on device" in result.stderr
    assert config.read_text() == BEFORE
    assert other.read_text() == AFTER_SAFE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pbtxt", "other.pbtxt"]


def test_read_only_file_is_reported_and_left_alone(tmp_path: Path, config: Path) -> None:
    config.chmod(0o444)
    result = invoke("check", "--fix", str(config))
    assert result.exit_code == 2
    assert result.stderr == (
        f"tpuemb: {config}: not fixed: cannot write: permission denied (the file is read-only)\n"
    )
    assert config.read_text() == BEFORE


JSON_BEFORE = """{
  "tableDescriptor": [
    {
      "name": "a", "vocabularySize": 10, "dimension": 4,
      "optimizationParameters": {
        "adagrad": {},
        "learningRate": {"dynamic": {"tag": 3}},
        "multiplyWeightDecayFactorByLearningRate": true,
        "gradientAccumulationStatus": "ENABLED"
      }
    }
  ],
  "mode": "TRAINING", "numHosts": 1, "numTensorCores": 8,
  "featureDescriptor": [{"tableId": 0, "inputShape": [4]}]
}
"""
JSON_AFTER = JSON_BEFORE.replace('"tag": 3', '"tag": 0').replace(
    '        "multiplyWeightDecayFactorByLearningRate": true,\n', ""
)


def test_json_fixes(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(JSON_BEFORE)
    result = invoke("check", "--fix", str(path))
    assert (result.exit_code, result.stdout) == (
        0,
        "Found 2 findings (2 fixed, 0 remaining); 1 file checked.\n",
    )
    assert path.read_text() == JSON_AFTER
    json.loads(path.read_text())


def test_binary_files_get_no_fixes(tmp_path: Path) -> None:
    path = tmp_path / "ftrl.pb"
    path.write_bytes((CONFIGS.parent / "optim" / "ftrl_custom.pb").read_bytes())
    before = path.read_bytes()
    result = invoke("check", "--fix", "--type", "OptimizationParameters", str(path))
    assert (
        result.stderr
        == f"tpuemb: {path}: binary files get no fixes (convert to text to fix them)\n"
    )
    assert path.read_bytes() == before


def test_unused_suppression_removal_and_fixable_count(tmp_path: Path) -> None:
    path = tmp_path / "a.pbtxt"
    text = BEFORE.replace("  # tpuemb: ignore[TE105] left over", "")
    path.write_text(text.replace('name: "a"   # first', 'name: "a"\n  # tpuemb: ignore[TE401] x'))
    result = invoke("check", str(path))
    assert result.stdout.endswith(
        "[*] 4 findings fixable with `--fix` (1 hidden fix can be enabled with `--unsafe-fixes`).\n"
    )
    invoke("check", "--fix", str(path))
    assert "tpuemb: ignore" not in path.read_text()


def _many(count: int) -> str:
    """A config with ``count`` tables, each with one safe fix (a multiplier with no decay)."""
    tables = "".join(
        f'table_descriptor {{ name: "t{i}" vocabulary_size: 10 dimension: 4 '
        "optimization_parameters { adagrad {} learning_rate { constant: 0.1 } "
        "multiply_weight_decay_factor_by_learning_rate: true } }\n"
        for i in range(count)
    )
    features = "".join(
        f"feature_descriptor {{ table_id: {i} input_shape: 4 }}\n" for i in range(count)
    )
    return tables + "mode: TRAINING num_hosts: 1 num_tensor_cores: 8\n" + features


def test_one_fix_run_makes_every_fix(tmp_path: Path) -> None:
    # 30 fixes: more than the 20 passes of one fix each that --fix once made.
    path = tmp_path / "model.pbtxt"
    path.write_text(_many(30))
    expected = _many(30).replace(" multiply_weight_decay_factor_by_learning_rate: true", "")
    diff = invoke("check", "--diff", str(path))
    assert diff.exit_code == 1
    assert diff.stdout.count("\n-table_descriptor") == 30
    assert diff.stdout.count("\n+table_descriptor") == 30
    result = invoke("check", "--fix", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "Found 30 findings (30 fixed, 0 remaining); 1 file checked.\n",
        "tpuemb: fixed 1 file\n",
    )
    assert path.read_text() == expected
    again = invoke("check", "--fix", str(path))
    assert (again.exit_code, again.stderr) == (0, "")


def test_fixes_next_to_a_problem_that_does_not_stop_the_parse(tmp_path: Path) -> None:
    # An unknown field is an error, but the file parses: the fixes are made, the field stays.
    path = tmp_path / "model.pbtxt"
    path.write_text(_many(30) + "bogus: 1\n")
    result = invoke("check", "--fix", "--format", "concise", str(path))
    assert (result.exit_code, result.stderr) == (1, "tpuemb: fixed 1 file\n")
    assert result.stdout == (
        f"{path}:62:1: TE002 [error] TPUEmbeddingConfiguration has no field `bogus`\n"
        "Found 31 findings (30 fixed, 1 remaining: 1 error); 1 file checked.\n"
    )


def test_a_file_that_does_not_parse_is_not_fixed_nor_called_fixable(tmp_path: Path) -> None:
    path = tmp_path / "model.pbtxt"
    text = "# tpuemb: ignore[TE105] left over\n" + _many(3) + "}\n"
    path.write_text(text)
    result = invoke("check", "--fix", "--format", "concise", str(path))
    # Its suppression is not reported unused (the rules never ran), so nothing is fixable.
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        f"{path}:9:1: TE001 [error] expected a field name, found `}}`\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )  # and no "fixable with `--fix`": it is not
    assert path.read_text() == text


def test_a_fix_that_never_settles_stops_at_the_bound(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An editor bug that makes every pass change the file (it adds a comment each time).
    from tpuemb_cli.fix import apply

    monkeypatch.setattr(apply, "MAX_PASSES", 5)
    monkeypatch.setattr(textedit, "text_edits", lambda fix, source: [TextEdit(0, 0, "#\n")])
    result = invoke("check", "--fix", str(config))
    assert result.stderr == (
        f"tpuemb: {config}: fixes stopped after 5 passes; run --fix again\ntpuemb: fixed 1 file\n"
    )
    assert config.read_text() == "#\n" * 5 + BEFORE
