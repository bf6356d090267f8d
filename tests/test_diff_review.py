"""What a hostile review of `tpuemb diff` found, each case as it must behave now."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN, DATA

ROOT = Path(__file__).parent.parent


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    (tmp_path / "old.pbtxt").write_text(CLEAN)
    return tmp_path


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_checkpoint_folder_never_opens_what_is_not_a_regular_file(here: Path, kind: str) -> None:
    folder = here / "ckpt"
    folder.mkdir()
    if kind == "fifo":
        os.mkfifo(folder / "ckpt-1.index")
    else:
        (folder / "ckpt-1.index").symlink_to("/dev/zero")
    result = invoke("diff", "--against-checkpoint", "ckpt", "old.pbtxt")
    assert result.exit_code == 2
    assert "no checkpoint in it" in result.stderr


def test_a_huge_checkpoint_state_file_is_refused_unread(here: Path) -> None:
    folder = here / "ckpt"
    folder.mkdir()
    with (folder / "checkpoint").open("wb") as state:
        state.truncate(1 << 31)  # sparse: 2 GB that no one should read
    result = invoke("diff", "--against-checkpoint", "ckpt", "old.pbtxt")
    assert result.exit_code == 2
    assert "larger than the 1048576 bytes a checkpoint state file has" in result.stderr


def test_sarif_of_a_pair_that_cannot_be_compared_is_valid(here: Path) -> None:
    (here / "broken.pbtxt").write_text("table_descriptor { name: \n")
    result = invoke("diff", "--format", "sarif", "old.pbtxt", "broken.pbtxt")
    assert result.exit_code == 2
    log = json.loads(result.stdout)
    jsonschema.validate(log, json.loads((DATA / "sarif-schema-2.1.0.json").read_text()))
    (run,) = log["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["TE001"]
    assert "TE001" in [rule["id"] for rule in run["tool"]["driver"]["rules"]]


def test_two_sparsecore_specs_compare_by_what_tensorflow_restores(here: Path) -> None:
    # Issue 39: a table removed from a TPUEmbeddingV2 spec makes the restore raise (the layouts'
    # keys differ: tests/test_tf_sparsecore_diff.py), placed at the table in the old file.
    spec = ROOT / "examples" / "sparsecore" / "dlrm.spec.yaml"
    smaller = here / "new.yaml"
    lines = spec.read_text().splitlines(True)
    smaller.write_text("".join(line for line in lines if "cat_25" not in line))
    result = invoke("diff", "--format", "concise", str(spec), str(smaller))
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        f"{spec}:39:5: TE951 [error] restore-error: restoring fails: the checkpoint's table "
        "`cat_25` (in stack `cat_0_cat_1_cat_10_cat_1...at_7_cat_8_cat_9` (171 characters)) is "
        "no table of the new spec (TensorFlow: ValueError: Layouts in checkpoint and embedding "
        "must have the same keys, whether the embedding is built or not)\n"
        "Found 1 change: 1 restore-error (1 file pair compared).\n"
    )
    # The same spec on both sides (a reformatted copy too) lays out the same checkpoint.
    copy = here / "copy.yaml"
    copy.write_text(spec.read_text().replace("\n", "\n\n"))
    same = invoke("diff", str(spec), str(copy))
    assert (same.exit_code, same.stdout, same.stderr) == (
        0,
        "No changes (1 file pair compared).\n",
        "",
    )


def test_a_sparsecore_spec_against_a_checkpoint_without_layouts_cannot_be_compared(
    here: Path,
) -> None:
    from tests import checkpoint_files

    spec = ROOT / "examples" / "sparsecore" / "dlrm.spec.yaml"
    variables = checkpoint_files.embedding({"cat_1": (1000, 8)}, {"cat_1": ["accumulators"]})
    index = here / "ckpt-1.index"
    checkpoint_files.save(index, checkpoint_files.bundle(variables))
    result = invoke("diff", "--against-checkpoint", str(index), str(spec))
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"tpuemb: error: {index}: cannot compare with {spec}, a SparseCore spec: the checkpoint "
        "holds no `_sparse_core_table_layouts`, which every TPUEmbeddingV2 checkpoint holds (was "
        "it saved by TPUEmbedding, or TPUEmbeddingForServing?)\n"
    )


@pytest.mark.parametrize("command", ["diff", "check"])
def test_a_report_is_never_written_over_an_input(here: Path, command: str) -> None:
    (here / "new.pbtxt").write_text(CLEAN)
    files = ["old.pbtxt", "new.pbtxt"] if command == "diff" else ["new.pbtxt"]
    result = invoke(command, "--format", "json", "--output-file", "new.pbtxt", *files)
    assert result.exit_code == 2
    assert "--output-file new.pbtxt is an input" in result.stderr
    assert (here / "new.pbtxt").read_text() == CLEAN


def test_a_comment_naming_both_commands_rules_stays_for_the_other(here: Path) -> None:
    mixed = CLEAN.replace(
        "num_hosts: 1", "num_hosts: 2  # tpuemb: ignore[TE403, topology-change] resharded"
    )
    (here / "new.pbtxt").write_text(mixed)
    checked = invoke("check", "--format", "concise", "new.pbtxt")
    assert checked.stdout.splitlines()[0] == (
        "new.pbtxt:12:15: TE902 [warning] this suppression of TE403 suppresses nothing (its "
        "topology-change is another command's)"
    )
    fixed = invoke("check", "--fix", "new.pbtxt")
    assert fixed.exit_code == 0 and (here / "new.pbtxt").read_text() == mixed  # nothing to fix
    diffed = invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt")
    assert (diffed.exit_code, json.loads(diffed.stdout)["changes"]) == (0, [])


def test_a_misspelt_kind_is_reported_by_diff_too(here: Path) -> None:
    (here / "new.pbtxt").write_text(
        CLEAN.replace("dimension: 16", "dimension: 32  # tpuemb: ignore[restore-eror] retrained")
    )
    result = invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt")
    assert result.exit_code == 1
    (refused,) = json.loads(result.stdout)["findings"]
    assert (refused["rule"], refused["line"]) == ("TE901", 4)
    assert "restore-error" in refused["message"]


def test_files_without_comments_are_told_to_use_the_configuration(here: Path) -> None:
    (here / "old.json").write_text(
        json.dumps({"tableDescriptor": [{"name": "t", "dimension": 4, "vocabularySize": 10}]})
    )
    (here / "new.json").write_text(
        json.dumps({"tableDescriptor": [{"name": "t", "dimension": 8, "vocabularySize": 10}]})
    )
    result = invoke("diff", "--format", "json", "old.json", "new.json")
    (change,) = json.loads(result.stdout)["changes"]
    assert change["help"] == (
        "if the change is intended, acknowledge it with a [[suppress]] entry for `new.json`, "
        "this field and `restore-error`, with a reason (JSON files hold no suppression comments)"
    )


def test_a_spec_topology_change_is_at_its_field(here: Path) -> None:
    spec = (
        "tables:\n  - {name: user, vocabulary_size: 100, dim: 8}\n"
        "optimizer: {adagrad: {}}\nfeatures:\n  - {name: f, table: user, input_shape: [16]}\n"
        "topology:\n  num_hosts: 1\n  cores_per_host: 4\n"
    )
    (here / "old.yaml").write_text(spec)
    (here / "new.yaml").write_text(spec.replace("num_hosts: 1", "num_hosts: 2"))
    (change,) = json.loads(invoke("diff", "--format", "json", "old.yaml", "new.yaml").stdout)[
        "changes"
    ]
    assert (change["field"], change["line"], change["column"]) == ("topology.num_hosts", 7, 3)
    (here / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "new.yaml"\nfield = "topology.num_hosts"\n'
        'rules = ["topology-change"]\nreason = "resharded"\n'
    )
    report = json.loads(invoke("diff", "--format", "json", "old.yaml", "new.yaml").stdout)
    assert (report["changes"], report["findings"]) == ([], [])


def test_a_new_table_is_acknowledged_on_the_line_before_it_named_or_not(here: Path) -> None:
    table = (
        "table_descriptor {{\n{name}  vocabulary_size: 10\n  dimension: 4\n"
        "  optimization_parameters {{ adagrad {{}} learning_rate {{ constant: 0.1 }} }}\n}}\n"
    )
    for name in ('  name: "t2"\n', ""):
        (here / "new.pbtxt").write_text(
            CLEAN + "# tpuemb: ignore[silent-reinit] a new table\n" + table.format(name=name)
        )
        result = invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt")
        report = json.loads(result.stdout)
        assert "silent-reinit" not in [c["kind"] for c in report["changes"]], name
        assert report["findings"] == [], name


@pytest.mark.parametrize(
    ("settings", "args", "kinds"),
    [
        ('ignore = ["TE9"]\n', [], ["restore-error"]),
        ('ignore = ["TE"]\n', [], ["restore-error"]),
        ('[per-file-ignores]\n"new.pbtxt" = ["TE9"]\n', [], ["restore-error"]),
        ("", ["--ignore", "TE95"], []),
        ("", ["--ignore", "restore-error"], []),
    ],
    ids=["ignore-TE9", "ignore-TE", "per-file-TE9", "ignore-TE95", "ignore-kind"],
)
def test_an_ignore_written_for_check_keeps_the_gate(
    here: Path, settings: str, args: list[str], kinds: list[str]
) -> None:
    (here / "new.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 32"))
    (here / ".tpuemb.toml").write_text(settings)
    result = invoke("diff", "--format", "json", *args, "old.pbtxt", "new.pbtxt")
    assert [c["kind"] for c in json.loads(result.stdout)["changes"]] == kinds
    assert result.exit_code == (1 if kinds else 0)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--against-checkpoint", "", "old.pbtxt"], "--against-checkpoint names no checkpoint"),
        (["-", "-"], "stdin (-) can be read once"),
    ],
    ids=["empty-checkpoint", "stdin-twice"],
)
def test_usage_errors(here: Path, args: list[str], said: str) -> None:
    result = invoke("diff", *args)
    assert result.exit_code == 2
    assert said in result.stderr


def test_show_files_says_cannot_compare_once(here: Path) -> None:
    (here / "broken.pbtxt").write_text("table_descriptor { name: \n")
    result = invoke("diff", "--show-files", "old.pbtxt", "broken.pbtxt")
    assert (result.exit_code, result.stdout) == (
        2,
        "broken.pbtxt: cannot compare: it has errors (the report without --show-files lists "
        "them)\n",
    )


def test_an_unnamed_table_inserted_before_another_inherits_its_rows(here: Path) -> None:
    table = (
        "table_descriptor {{ vocabulary_size: 10 dimension: 4 optimization_parameters {{ "
        "adagrad {{}} learning_rate {{ constant: 0.1 }} }} }}\n"
    )
    old = table.format() + 'feature_descriptor { name: "fa" table_id: 0 input_shape: 4 }\n'
    new = (
        table.format()
        + table.format()
        + 'feature_descriptor { name: "fz" table_id: 0 input_shape: 4 }\n'
        + 'feature_descriptor { name: "fa" table_id: 1 input_shape: 4 }\n'
    )
    (here / "old.pbtxt").write_text(old + "mode: TRAINING\n")
    (here / "new.pbtxt").write_text(new + "mode: TRAINING\n")
    report = json.loads(invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt").stdout)
    messages = [c["message"] for c in report["changes"] if c["kind"] == "silent-reinit"]
    # The new table_0 is restored from the checkpoint's table_0, which was fa's table.
    assert any("`table_0` is restored from the checkpoint's `table_0`" in m for m in messages)


def test_none_goes_alone_in_fail_on(here: Path) -> None:
    result = invoke("diff", "--fail-on", "none,restore-error", "old.pbtxt", "old.pbtxt")
    assert result.exit_code == 2
    assert "`none` fails on nothing: it goes alone" in result.stderr


def test_an_unreadable_input_still_writes_its_report(here: Path) -> None:
    result = invoke(
        "diff", "--format", "sarif", "--output-file", "r.sarif", "old.pbtxt", "nope.pbtxt"
    )
    assert result.exit_code == 2
    log = json.loads((here / "r.sarif").read_text())
    assert log["runs"][0]["results"] == []


def test_check_add_suppressions_with_diff_is_a_usage_error(here: Path) -> None:
    result = invoke("check", "--add-suppressions", "--diff", "old.pbtxt")
    assert result.exit_code == 2
    assert "--diff writes nothing" in result.stderr
    assert not (here / ".tpuemb.toml").exists()


def test_json_lines_marks_what_is_not_a_change(here: Path) -> None:
    (here / "new.pbtxt").write_text(
        CLEAN.replace("num_hosts: 1", "num_hosts: 1  # tpuemb: ignore[topology-change] resharded")
    )
    result = invoke("diff", "--format", "json-lines", "old.pbtxt", "new.pbtxt")
    (line,) = [json.loads(text) for text in result.stdout.splitlines()]
    assert (line["kind"], line["rule"], line["table"]) == (None, "TE902", None)


def test_a_duplicate_yaml_key_is_reported_not_read_silently(here: Path) -> None:
    spec = (
        "tables:\n  - {name: user, vocabulary_size: 100, dim: 8}\n"
        "optimizer: {adagrad: {}}\nfeatures:\n  - {name: f, table: user, input_shape: [16]}\n"
        "topology: {num_hosts: 1, cores_per_host: 4}\n"
    )
    (here / "old.yaml").write_text(spec)
    (here / "new.yaml").write_text(spec.replace("dim: 8}", "dim: 128, dim: 8}"))
    checked = invoke("check", "--format", "concise", "new.yaml")
    assert checked.stdout.startswith(
        "new.yaml:2:50: TE006 [error] the key `dim` appears more than once in one mapping"
    )
    # diff does not compare a side it cannot read as written.
    assert invoke("diff", "old.yaml", "new.yaml").exit_code == 2
