"""Source excerpts in the `full` format: a long line (minified JSON is one line) is shown in a
window around the finding's column, cut with `...`, so that the output of a finding does not
grow with its line (a 314 KB one-line JSON with 4,000 findings printed 875 MB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def table(name: str, dimension: int) -> dict[str, object]:
    return {
        "name": name,
        "vocabularySize": 8,
        "dimension": dimension,
        "optimizationParameters": {
            "adagrad": {},
            "learningRate": {"constant": 0.1},
            "gradientAccumulationStatus": "ENABLED",
        },
    }


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_minified_json_is_cut_on_both_sides(folder: Path) -> None:
    config = {
        "tableDescriptor": [table("t0", 4), table("t1", 0), table("t2", 4)],
        "mode": "TRAINING",
        "numHosts": 1,
        "numTensorCores": 8,
        "featureDescriptor": [{"name": f"f{i}", "tableId": i, "inputShape": [4]} for i in range(3)],
    }
    (folder / "min.json").write_text(json.dumps(config, separators=(",", ":")))
    result = invoke("check", "--format", "full", "min.json")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        'TE403 [error] invalid-table-size: table 1 ("t1") has `dimension` 0 (or not set); it '
        "needs at least 1 column\n"
        "  --> min.json:1:211\n"
        "    |\n"
        '  1 | ...BLED"}},{"name":"t1","vocabularySize":8,"dimension":0,"optimizationParameters":'
        '{"adagrad":{},"learningRate":{"constant":...\n'
        "    |                                            ^^^^^^^^^^^^^\n"
        "    |\n"
        "  = field: table_descriptor[1].dimension\n"
        "  = help: set `dimension` to the number of columns (the embedding width)\n"
        "\n"
        "Found 1 error in 1 file (1 file checked).\n",
        "",
    )


def test_context_lines_share_the_window(folder: Path) -> None:
    def text_table(name: str, rate: str) -> str:
        return (
            f'table_descriptor {{ name: "{name}" vocabulary_size: 8 dimension: 4 '
            f"optimization_parameters {{ adagrad {{}} learning_rate {{ constant: {rate} }} "
            "gradient_accumulation_status: ENABLED } }"
        )

    (folder / "long.pbtxt").write_text(
        text_table("a", "0.1")
        + "\n\t# a tab, and a comment long enough to be cut on the right as well as on the left:"
        + " it goes on and on" * 8
        + "\n"
        + text_table("b", "0")
        + "  \r\nmode: TRAINING num_hosts: 1 num_tensor_cores: 8"
        + ' feature_descriptor { name: "f" table_id: 0 input_shape: 4 }'
        + ' feature_descriptor { name: "g" table_id: 1 input_shape: 4 }\n'
    )
    result = invoke("check", "--format", "full", "long.pbtxt")
    # Line 3 is cut where the finding's column puts the window (its end fits: no `...` there,
    # and its CR is not shown); lines 2 and 4 are cut at the same columns, so that they line up.
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "TE105 [warning] zero-learning-rate: the learning rate is 0, so this table's embeddings "
        "never change during training\n"
        "  --> long.pbtxt:3:115\n"
        "    |\n"
        "  2 | ...e right as well as on the left: it goes on and on it goes on and on it goes on "
        "and on it goes on and on it goes on and o...\n"
        "  3 | ...ension: 4 optimization_parameters { adagrad {} learning_rate { constant: 0 } "
        "gradient_accumulation_status: ENABLED } }\n"
        "    |                                                                   ^^^^^^^^^^^\n"
        '  4 | ...ture_descriptor { name: "f" table_id: 0 input_shape: 4 } feature_descriptor '
        '{ name: "g" table_id: 1 input_shape: 4 }\n'
        "    |\n"
        "  = field: table_descriptor[1].optimization_parameters.learning_rate.constant\n"
        "  = help: set the learning rate you meant, or suppress this finding for a table frozen "
        "on purpose\n"
        "\n"
        "Found 1 warning in 1 file (1 file checked).\n",
        "",
    )


def test_a_thousand_findings_on_one_line_print_a_window_each(folder: Path) -> None:
    # The reported case, smaller: every finding's excerpt is one clipped line, whatever the
    # length of the line (the time is measured by bench/hostile.py, not here).
    config = {"tableDescriptor": [table(f"t{i}", 0) for i in range(1000)], "mode": "INFERENCE"}
    (folder / "min.json").write_text(json.dumps(config, separators=(",", ":")))
    result = invoke("check", "--format", "full", "--select", "TE403", "min.json")
    assert (result.exit_code, result.stderr) == (1, "")
    excerpts = [line for line in result.stdout.splitlines() if line.startswith("  1 | ")]
    assert len(excerpts) == 1000
    assert max(len(line) for line in excerpts) == len("  1 | ") + 3 + 120 + 3
    assert len(result.stdout) < 600 * 1000
