"""`tpuemb diff` safe to leave on (issue 24): files with no checkpoint layout are skipped, never
an error; a side that does not load, or a spec `compile` refuses, cannot be compared (its errors
reported, exit 2) instead of being compared with made-up values; identical files and renamed
features; `--type`, and `convert`'s header."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN, OPTIMS

ROOT = Path(__file__).parent.parent
SPEC = (
    "tables:\n  - {name: user, vocabulary_size: 100, dim: 8}\n"
    "optimizer: {adagrad: {}}\nfeatures:\n  - {name: f, table: user, input_shape: [16]}\n"
    "topology: {num_hosts: 1, cores_per_host: 4}\n"
)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    return tmp_path


@pytest.fixture
def repo(here: Path) -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is required")
    _git(here, "init", "-q")
    _git(here, "config", "user.email", "ci@example.com")
    _git(here, "config", "user.name", "CI")
    return here


def test_an_optimizer_file_and_a_saved_model_are_skipped_and_the_restore_error_decides(
    repo: Path,
) -> None:
    # What the pre-commit hook passes: every staged file with a matching name.
    configs = repo / "configs"
    configs.mkdir()
    (configs / "model.pbtxt").write_text(CLEAN)
    shutil.copy(OPTIMS / "adagrad_clip_all.pb", configs / "adagrad.pb")
    (configs / "adagrad.pbtxt").write_text(
        "# proto-message: OptimizationParameters\nadagrad {}\nlearning_rate { constant: 0.1 }\n"
    )
    saved = ROOT / "tests" / "data" / "real-repo" / "tree" / "models" / "ranker" / "1"
    model = configs / "saved_model.pb"
    shutil.copy(saved / "saved_model.pb", model)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "first")
    (configs / "model.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 32"))
    (configs / "adagrad.pbtxt").write_text(
        "# proto-message: OptimizationParameters\nadagrad {}\nlearning_rate { constant: 0.2 }\n"
    )
    model.write_bytes(model.read_bytes() + b"\x12\x00")  # one more (empty) meta graph
    files = ["configs/adagrad.pb", "configs/adagrad.pbtxt", "configs/model.pbtxt", str(model)]
    result = invoke("diff", "--against", "HEAD", "--documents-only", "--format", "json", *files)
    assert (result.exit_code, result.stderr) == (1, "")
    report = json.loads(result.stdout)
    assert [c["kind"] for c in report["changes"]] == ["restore-error"]
    # Without --documents-only too: named, they are still no checkpoint layout, not an error.
    named = invoke("diff", "--against", "HEAD", "--format", "concise", *files[:3])
    assert named.exit_code == 1, named.stderr
    shown = invoke("diff", "--against", "HEAD", "--show-files", *files[:3])
    assert shown.stdout.splitlines() == [
        "configs/adagrad.pb: skipped: holds OptimizationParameters, which has no checkpoint "
        "layout to compare",
        "configs/adagrad.pbtxt: skipped: holds OptimizationParameters, which has no checkpoint "
        "layout to compare",
        "configs/model.pbtxt: compared",
    ]
    assert shown.exit_code == 0


def test_two_named_files_with_no_checkpoint_layout_are_skipped(here: Path) -> None:
    result = invoke(
        "diff", str(OPTIMS / "adagrad_clip_all.pb"), str(OPTIMS / "adagrad_clip_all.pb")
    )
    assert (result.exit_code, result.stdout) == (0, "No changes (0 file pairs compared).\n")


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (("vocabulary_size: 100", "vocabulary_size: 50000000x"), "TE007"),
        (("tables:", "tabels:"), "TE002"),
        (("dim: 8", "dim: 0"), "TE701"),
    ],
    ids=["bad-number", "misspelt-tables", "compile-refuses"],
)
def test_a_spec_compile_refuses_cannot_be_compared(
    here: Path, edit: tuple[str, str], rule: str
) -> None:
    (here / "old.yaml").write_text(SPEC)
    (here / "new.yaml").write_text(SPEC.replace(*edit))
    result = invoke("diff", "--format", "json", "old.yaml", "new.yaml")
    assert result.exit_code == 2
    assert result.stderr == (
        "tpuemb: error: new.yaml: cannot compare: it has errors (reported below)\n"
    )
    report = json.loads(result.stdout)
    assert report["changes"] == []
    assert rule in {f["rule"] for f in report["findings"]}
    assert {f["file"] for f in report["findings"]} == {"new.yaml"}


def test_a_config_value_that_did_not_load_is_not_compared_as_its_default(here: Path) -> None:
    (here / "old.pbtxt").write_text(CLEAN)
    (here / "new.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 16x"))
    result = invoke("diff", "--format", "concise", "old.pbtxt", "new.pbtxt")
    assert result.exit_code == 2
    assert "TE001" in result.stdout or "TE007" in result.stdout
    assert "restore-error" not in result.stdout


def test_identical_files_are_no_change_even_when_broken() -> None:
    mistakes = str(ROOT / "examples" / "mistakes" / "common_mistakes.pbtxt")
    result = invoke("diff", "--format", "concise", mistakes, mistakes)
    assert (result.exit_code, result.stdout) == (0, "No changes (1 file pair compared).\n")


def test_a_renamed_feature_is_cosmetic(here: Path) -> None:
    (here / "old.pbtxt").write_text(CLEAN)
    (here / "new.pbtxt").write_text(CLEAN.replace('name: "watched"', 'name: "seen"'))
    result = invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt")
    (change,) = json.loads(result.stdout)["changes"]
    assert (change["kind"], change["field"], change["old"], change["new"]) == (
        "cosmetic",
        "feature_descriptor[0].name",
        "watched",
        "seen",
    )
    # Renamed and moved to another table: that is a change of what it trains.
    two = CLEAN.replace(
        "mode: TRAINING",
        'table_descriptor { name: "b" vocabulary_size: 10 dimension: 16 '
        "optimization_parameters { adagrad {} learning_rate { constant: 0.05 } "
        "gradient_accumulation_status: ENABLED } }\nmode: TRAINING",
    )
    (here / "old.pbtxt").write_text(two)
    (here / "new.pbtxt").write_text(
        two.replace('name: "watched" table_id: 0', 'name: "seen" table_id: 1')
    )
    kinds = [
        c["kind"]
        for c in json.loads(invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt").stdout)[
            "changes"
        ]
    ]
    assert kinds.count("training-change") == 2  # one feature gone, one new


def test_a_converted_spec_diffs_as_the_spec(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC)
    assert invoke("convert", "spec.yaml", "--to", "text", "-o", "spec.txtpb").exit_code == 0
    assert (
        (here / "spec.txtpb").read_text().startswith("# proto-message: tpuemb.spec.EmbeddingSpec\n")
    )
    assert invoke("diff", "spec.yaml", "spec.txtpb").stdout == (
        "No changes (1 file pair compared).\n"
    )
    assert invoke("convert", "spec.yaml", "--to", "binary", "-o", "spec.pb").exit_code == 0
    result = invoke("diff", "--type", "EmbeddingSpec", "spec.yaml", "spec.pb")
    assert (result.exit_code, result.stdout) == (0, "No changes (1 file pair compared).\n")
    # A config converted to text keeps no header: its type is the default.
    (here / "c.pbtxt").write_text(CLEAN)
    assert invoke("convert", "c.pbtxt", "--to", "text").stdout.startswith("table_descriptor")


@pytest.mark.parametrize("value", ["", " , ", ","])
def test_an_empty_fail_on_is_a_usage_error(here: Path, value: str) -> None:
    (here / "a.pbtxt").write_text(CLEAN)
    result = invoke("diff", "--fail-on", value, "a.pbtxt", "a.pbtxt")
    assert result.exit_code == 2
    assert "--fail-on" in result.stderr and "names no kind" in result.stderr
    assert invoke("diff", "--fail-on", "none", "a.pbtxt", "a.pbtxt").exit_code == 0


def test_a_shape_change_says_which_side_is_which(here: Path) -> None:
    (here / "old.pbtxt").write_text(CLEAN)
    (here / "new.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 32"))
    (change,) = json.loads(invoke("diff", "--format", "json", "old.pbtxt", "new.pbtxt").stdout)[
        "changes"
    ]
    assert change["message"].startswith(
        "restoring fails: the checkpoint's `video` has shape (1000, 16), the new `video` (1000, 32)"
    )


def test_a_spec_diff_names_the_spec_topology_fields(here: Path) -> None:
    (here / "old.yaml").write_text(SPEC)
    (here / "hosts.yaml").write_text(SPEC.replace("num_hosts: 1", "num_hosts: 2"))
    (here / "cores.yaml").write_text(SPEC.replace("cores_per_host: 4", "cores_per_host: 8"))
    hosts = json.loads(invoke("diff", "--format", "json", "old.yaml", "hosts.yaml").stdout)
    # The config's num_tensor_cores doubles with the hosts: no change of its own.
    assert [c["message"].split(":")[0] for c in hosts["changes"]] == [
        "`num_hosts` changes from 1 to 2"
    ]
    cores = json.loads(invoke("diff", "--format", "json", "old.yaml", "cores.yaml").stdout)
    (change,) = cores["changes"]
    assert change["message"].startswith("`topology.cores_per_host` changes from 4 to 8")
    assert (change["old"], change["new"], change["line"]) == (4, 8, 6)  # the topology line
