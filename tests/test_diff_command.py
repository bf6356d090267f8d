"""`tpuemb diff OLD NEW` end to end: exit code, stdout and stderr, in every format; the JSON
contract (docs/diff.md); bad inputs and options. (`check --diff` is tests/test_diff.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN, DATA, OPTIMS

NEW = (
    CLEAN.replace("dimension: 16", "dimension: 32")
    .replace("adagrad {}", "ftrl {}")
    .replace("0.05", "0.1")
    .replace("num_hosts: 1", "num_hosts: 2")
)
CONCISE = """\
new.pbtxt:4:3: TE951 [error] restore-error: restoring fails: the checkpoint's `video` has shape (1000, 16), the new `video` (1000, 32) (TensorFlow: Received incompatible tensor with shape ...)
new.pbtxt:6:5: TE952 [error] silent-reinit: Adagrad -> FTRL: the slot `video/linears` starts from its initializer: Adagrad left no `linears` in the checkpoint
new.pbtxt:6:5: TE954 [warning] training-change: Adagrad -> FTRL: the slot `video/accumulators` is restored by name from what Adagrad wrote there, and FTRL reads it as its own `accumulators`
new.pbtxt:6:5: TE954 [warning] training-change: the optimizer changes from Adagrad to FTRL
new.pbtxt:7:21: TE954 [warning] training-change: `learning_rate.constant` changes from 0.05 to 0.1
new.pbtxt:12:1: TE955 [info] topology-change: `num_hosts` changes from 1 to 2: each table's rows are split over the hosts and saved as slices of one variable, so the checkpoint restores onto the new host count
Found 6 changes: 1 restore-error, 1 silent-reinit, 3 training-change, 1 topology-change (1 file pair compared).
"""  # noqa: E501


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    (tmp_path / "old.pbtxt").write_text(CLEAN)
    (tmp_path / "new.pbtxt").write_text(NEW)


@pytest.mark.usefixtures("pair")
def test_concise_output_and_exit_1() -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (1, CONCISE, "")


@pytest.mark.usefixtures("pair")
def test_no_change_exits_0() -> None:
    result = invoke("diff", "old.pbtxt", "old.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "No changes (1 file pair compared).\n",
        "",
    )


@pytest.mark.usefixtures("pair")
@pytest.mark.parametrize(
    ("fail_on", "code"),
    [("none", 0), ("topology-change", 1), ("orphaned-state,cosmetic", 0), ("training-change", 1)],
)
def test_fail_on_decides_the_exit_code(fail_on: str, code: int) -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--fail-on", fail_on)
    assert (result.exit_code, result.stdout) == (code, CONCISE)


@pytest.mark.usefixtures("pair")
def test_json_contract() -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert set(report) == {"version", "changes", "findings", "summary"}
    assert report["findings"] == []
    assert report["version"] == 1
    assert report["summary"] == {
        "restore-error": 1,
        "silent-reinit": 1,
        "orphaned-state": 0,
        "training-change": 3,
        "topology-change": 1,
        "cosmetic": 0,
        "unsaved-state": 0,
        "unverified-layout": 0,
    }
    assert report["changes"][0] == {
        "kind": "restore-error",
        "table": "video",
        "field": "table_descriptor[0].dimension",
        "old": 16,
        "new": 32,
        "message": "restoring fails: the checkpoint's `video` has shape (1000, 16), the new "
        "`video` (1000, 32) (TensorFlow: Received incompatible tensor with shape ...)",
        "file": "new.pbtxt",
        "line": 4,
        "column": 3,
        # Added with the catalog (the keys above are the contract, kept as they were).
        "rule": "TE951",
        "name": "restore-error",
        "severity": "error",
        "help": "if the change is intended, acknowledge it: `# tpuemb: ignore[restore-error] "
        "<why>` on this line, or a [[suppress]] entry for this field with a reason",
        "end_line": 4,
        "end_column": 16,
    }
    # In the documented order (docs/diff.md): the contract's keys, then a finding's others.
    assert list(report["changes"][0]) == [
        *("kind", "table", "field", "old", "new", "message", "file", "line", "column"),
        *("rule", "name", "severity", "help", "end_line", "end_column"),
    ]
    assert [c["kind"] for c in report["changes"]] == [
        line.split(" ")[3][:-1] for line in CONCISE.splitlines()[:-1]
    ]
    lines = invoke("diff", "old.pbtxt", "new.pbtxt", "--format", "json-lines").stdout
    assert [json.loads(line) for line in lines.splitlines()] == report["changes"]


@pytest.mark.usefixtures("pair")
def test_full_format_quotes_the_line() -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--format", "full", "--fail-on", "none")
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "TE951 [error] restore-error: restoring fails: the checkpoint's `video` has shape "
        "(1000, 16), the new `video` (1000, 32) (TensorFlow: Received incompatible tensor with "
        "shape ...)\n"
        "  --> new.pbtxt:4:3\n"
        "    |\n"
        "  3 |   vocabulary_size: 1000\n"
        "  4 |   dimension: 32\n"
        "    |   ^^^^^^^^^^^^^\n"
        "  5 |   optimization_parameters {\n"
        "    |\n"
        "  = field: table_descriptor[0].dimension\n"
        "  = table: video\n"
        "  = change: 16 -> 32\n"
        "  = help: if the change is intended, acknowledge it: `# tpuemb: ignore[restore-error] "
        "<why>` on this line, or a [[suppress]] entry for this field with a reason\n\n"
    )
    assert result.stdout.endswith(CONCISE.splitlines()[-1] + "\n")


@pytest.mark.usefixtures("pair")
def test_github_annotations() -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--format", "github")
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "::error file=new.pbtxt,line=4,col=3,endLine=4,endColumn=16,title=TE951 restore-error::"
        "restoring fails: the checkpoint's `video` has shape (1000, 16), the new `video` "
        "(1000, 32) (TensorFlow: Received incompatible tensor with shape ...) "
        "(table_descriptor[0].dimension: 16 -> 32)%0Ahelp: if the change is intended, "
        "acknowledge it: `# tpuemb: ignore[restore-error] <why>` on this line, or a [[suppress]] "
        "entry for this field with a reason"
    )
    assert [line.split(" ")[0] for line in lines] == ["::error"] * 2 + ["::warning"] * 3 + [
        "::notice"
    ]


@pytest.mark.usefixtures("pair")
def test_sarif_is_valid_and_has_a_rule_per_kind() -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--format", "sarif")
    log = json.loads(result.stdout)
    jsonschema.validate(log, json.loads((DATA / "sarif-schema-2.1.0.json").read_text()))
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    # The kinds of change found, each once, each with its documentation (issue 38: not every
    # rule's, which made the log of a few changes hundreds of kilobytes).
    found = sorted({result["ruleId"] for result in run["results"]})
    assert [rule["id"] for rule in rules] == found and "TE951" in found
    assert all(rule["help"]["markdown"] for rule in rules)
    assert run["automationDetails"] == {"id": "tpuemb-diff/"}
    first = run["results"][0]
    assert (first["ruleId"], first["level"]) == ("TE951", "error")
    assert rules[first["ruleIndex"]]["id"] == "TE951"
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4,
        "startColumn": 3,
        "endLine": 4,
        "endColumn": 16,
    }
    assert first["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "table_descriptor[0].dimension", "kind": "member"}
    ]


def test_a_spec_against_the_config_it_compiles_to_is_no_change() -> None:
    examples = Path(__file__).parent.parent / "examples"
    result = invoke(
        "diff", str(examples / "recommender.spec.yaml"), str(examples / "recommender.pbtxt")
    )
    assert (result.exit_code, result.stdout) == (0, "No changes (1 file pair compared).\n")


def test_a_spec_change_is_placed_in_the_spec(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(
        "tables:\n  - {name: user, vocabulary_size: 100, dim: 8}\n"
        "optimizer: {adagrad: {}}\nfeatures:\n  - {name: f, table: user, input_shape: [16]}\n"
        "topology: {num_hosts: 1, cores_per_host: 4}\n"
    )
    new = tmp_path / "new.yaml"
    new.write_text(old.read_text().replace("dim: 8", "dim: 16"))
    result = invoke("diff", str(old), str(new), "--format", "json")
    assert result.exit_code == 1
    (change,) = json.loads(result.stdout)["changes"]
    assert (change["kind"], change["field"], change["line"], change["column"]) == (
        "restore-error",
        "tables[0].dim",
        2,
        40,
    )
    assert (change["old"], change["new"]) == (8, 16)


def test_binary_input_has_no_positions(tmp_path: Path) -> None:
    from tpuemb_cli.load import load_bytes
    from tpuemb_cli.load.encodings import get

    config = load_bytes(NEW.encode(), "n.pbtxt").message
    assert config is not None
    (tmp_path / "new.pb").write_bytes(get("binary").render(config))
    (tmp_path / "old.pbtxt").write_text(CLEAN)
    result = invoke("diff", str(tmp_path / "old.pbtxt"), str(tmp_path / "new.pb"))
    assert result.stdout.splitlines()[0] == (
        f"{tmp_path / 'new.pb'}: TE951 [error] restore-error: restoring fails: the checkpoint's "
        "`video` has shape (1000, 16), the new `video` (1000, 32) (TensorFlow: Received "
        "incompatible tensor with shape ...) (at table_descriptor[0].dimension)"
    )


@pytest.mark.usefixtures("pair")
@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (["old.pbtxt", "nope.pbtxt"], "tpuemb: error: nope.pbtxt: no such file or directory\n"),
        (
            ["old.pbtxt", "broken.pbtxt"],
            "tpuemb: error: broken.pbtxt: cannot compare: it has errors (reported below)\n",
        ),
        (
            ["old.pbtxt", str(OPTIMS / "adagrad_clip_all.pb")],
            f"tpuemb: error: old.pbtxt and {OPTIMS / 'adagrad_clip_all.pb'}: cannot compare: "
            "old.pbtxt is a TPUEmbeddingConfiguration (TensorFlow's TPUEmbedding), "
            f"{OPTIMS / 'adagrad_clip_all.pb'} is a message of type OptimizationParameters, with "
            "no checkpoint layout; only a config, a spec, a stacked layout or a Keras-RS model "
            "has one to compare\n",
        ),
    ],
    ids=["missing", "broken", "not-a-config"],
)
def test_an_input_that_cannot_be_compared_exits_2(args: list[str], stderr: str) -> None:
    Path("broken.pbtxt").write_text("table_descriptor { name: \n")
    result = invoke("diff", *args)
    assert (result.exit_code, result.stderr) == (2, stderr)
    # A file that cannot be read: an empty report that says so; one that does not load: its
    # errors, reported.
    assert result.stdout == {
        "broken.pbtxt": "broken.pbtxt:2:1: TE001 [error] expected a value for `name`, found end "
        "of input\nNothing compared (1 file pair could not be compared).\n",
    }.get(args[1], "Nothing compared (1 file pair could not be compared).\n")


@pytest.mark.usefixtures("pair")
def test_bad_options_exit_2() -> None:
    result = invoke("diff", "old.pbtxt")
    assert result.exit_code == 2
    assert (
        "Error: give two files (OLD NEW), --against REF [PATH...], or --against-checkpoint CKPT "
        "FILE" in result.stderr
    )
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--fail-on", "restore-eror")
    assert result.exit_code == 2
    assert "unknown kind 'restore-eror'" in result.stderr


def test_a_config_the_linter_rejects_is_still_compared(tmp_path: Path) -> None:
    # Two tables of one name and a feature naming no table: findings for `check`; `diff` still
    # says what it can, without a traceback.
    (tmp_path / "old.pbtxt").write_text(CLEAN)
    (tmp_path / "new.pbtxt").write_text(
        'table_descriptor { name: "a" dimension: 4 }\n'
        'table_descriptor { name: "a" dimension: 8 }\n'
        "feature_descriptor { table_id: 7 }\n"
    )
    result = invoke("diff", str(tmp_path / "old.pbtxt"), str(tmp_path / "new.pbtxt"))
    assert (result.exit_code, result.stderr) == (1, "")
    assert (
        f"{tmp_path / 'new.pbtxt'}:3:22: TE954 [warning] training-change: feature 0 now looks "
        "up table_id 7 (no such table) (it looked up table `video`)"
    ) in result.stdout.splitlines()
    assert (
        f"{tmp_path / 'new.pbtxt'}:3:1: TE954 [warning] training-change: feature 0: "
        "`input_shape` changes from [16] to []: the activations' shapes change"
    ) in result.stdout.splitlines()


@pytest.mark.usefixtures("pair")
def test_output_file_takes_the_report_atomically(tmp_path: Path) -> None:
    result = invoke(
        "diff", "old.pbtxt", "new.pbtxt", "--format", "concise", "--output-file", "r.txt"
    )
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "")
    assert (tmp_path / "r.txt").read_text() == CONCISE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.pbtxt", "old.pbtxt", "r.txt"]


@pytest.mark.usefixtures("pair")
def test_an_output_file_that_cannot_be_written_exits_2(tmp_path: Path) -> None:
    result = invoke("diff", "old.pbtxt", "new.pbtxt", "--output-file", "missing/r.sarif")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("tpuemb: error: missing/r.sarif: cannot write the report: ")


def test_the_summary_groups_the_digits_of_each_kinds_count(tmp_path: Path) -> None:
    """``Found 1,000 changes: 1,000 orphaned-state``, not ``1000 orphaned-state``."""
    tables = "".join(
        f'table_descriptor {{ name: "t{i}" vocabulary_size: 10 dimension: 4 num_features: 1 '
        "optimization_parameters { learning_rate { constant: 0.1 } "
        "stochastic_gradient_descent {} } }\n"
        for i in range(1001)
    )
    config = "mode: TRAINING num_hosts: 1 num_tensor_cores: 8 batch_size_per_tensor_core: 4\n"
    old, new = tmp_path / "old.pbtxt", tmp_path / "new.pbtxt"
    old.write_text(config + tables)
    new.write_text(config + tables.split("\n", 1)[0] + "\n")
    arguments = ["diff", "--format", "concise", "--fail-on", "none", str(old), str(new)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Found 1,000 changes: 1,000 orphaned-state"), last
