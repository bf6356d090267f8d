"""`tpuemb diff --against REF [PATH...]` in a scratch git repository: each config or spec
under the paths against its version at the revision, files added and removed since, and a
revision git cannot read (exit 2); a config that no longer loads (issue 24, point 5)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

SPEC = (
    "tables:\n  - {name: user, vocabulary_size: 100, dim: 8}\n"
    "optimizer: {adagrad: {}}\nfeatures:\n  - {name: f, table: user, input_shape: [16]}\n"
    "topology: {num_hosts: 1, cores_per_host: 4}\n"
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is required")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "ci@example.com")
    _git(tmp_path, "config", "user.name", "CI")
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "model.pbtxt").write_text(CLEAN)
    (configs / "gone.pbtxt").write_text(CLEAN)
    (configs / "model.spec.yaml").write_text(SPEC)
    (configs / "notes.json").write_text('{"not": "a config"}\n')
    (tmp_path / "outside.pbtxt").write_text(CLEAN)
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "first")
    (configs / "model.pbtxt").write_text(CLEAN.replace("adagrad {}", "adam {}"))
    (configs / "gone.pbtxt").unlink()
    (configs / "new.pbtxt").write_text(CLEAN)
    (configs / "model.spec.yaml").write_text(SPEC.replace("dim: 8", "dim: 16"))
    (tmp_path / "outside.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 8"))
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "second")
    return tmp_path


@pytest.mark.usefixtures("repo")
def test_against_the_previous_commit() -> None:
    result = invoke("diff", "--against", "HEAD~1", "configs/")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        "HEAD~1:configs/gone.pbtxt:1:1: TE953 [warning] orphaned-state: removed since HEAD~1: "
        "the state of its 1 table in checkpoints written under it is restored by nothing\n"
        "configs/model.pbtxt:6:5: TE952 [error] silent-reinit: Adagrad -> Adam: the slot "
        "`video/momenta` starts from its initializer: Adagrad left no `momenta` in the "
        "checkpoint\n"
        "configs/model.pbtxt:6:5: TE952 [error] silent-reinit: Adagrad -> Adam: the slot "
        "`video/velocities` starts from its initializer: Adagrad left no `velocities` in the "
        "checkpoint\n"
        "configs/model.pbtxt:6:5: TE953 [warning] orphaned-state: Adagrad -> Adam: the "
        "checkpoint's slot `video/accumulators` is restored by nothing: Adam has no "
        "`accumulators`\n"
        "configs/model.pbtxt:6:5: TE954 [warning] training-change: the optimizer changes from "
        "Adagrad to Adam\n"
        "configs/model.spec.yaml:2:40: TE951 [error] restore-error: restoring fails: the "
        "checkpoint's `user` has shape (100, 8), the new `user` (100, 16) (TensorFlow: "
        "Received incompatible tensor with shape ...)\n"
        "configs/new.pbtxt:1:1: TE956 [info] cosmetic: new since HEAD~1: no checkpoint was "
        "written under this config (1 table)\n"
        "Found 7 changes: 1 restore-error, 2 silent-reinit, 2 orphaned-state, 1 training-change, "
        "1 cosmetic (4 file pairs compared).\n"
    )


@pytest.mark.usefixtures("repo")
def test_against_a_file_and_the_current_folder_by_default() -> None:
    result = invoke("diff", "--against", "HEAD~1", "outside.pbtxt", "--format", "json")
    assert result.exit_code == 1
    (change,) = json.loads(result.stdout)["changes"]
    assert (change["kind"], change["file"], change["line"]) == ("restore-error", "outside.pbtxt", 4)
    everything = json.loads(invoke("diff", "--against", "HEAD~1", "--format", "json").stdout)
    assert {c["file"] for c in everything["changes"]} == {
        "HEAD~1:configs/gone.pbtxt",
        "configs/model.pbtxt",
        "configs/model.spec.yaml",
        "configs/new.pbtxt",
        "outside.pbtxt",
    }


@pytest.mark.usefixtures("repo")
def test_nothing_changed_since_head() -> None:
    result = invoke("diff", "--against", "HEAD", "configs")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "No changes (3 file pairs compared).\n",
        "",
    )


@pytest.mark.usefixtures("repo")
def test_a_revision_git_cannot_read_exits_2() -> None:
    result = invoke("diff", "--against", "no-such-branch", "configs")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(
        "tpuemb: error: no-such-branch: not a revision git can read here"
    )
    result = invoke("diff", "--against", "--help-me", "configs")
    assert (result.exit_code, result.stderr) == (2, "tpuemb: error: '--help-me': not a revision\n")


def test_outside_a_repository_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "a.pbtxt").write_text(CLEAN)
    result = invoke("diff", "--against", "HEAD", "a.pbtxt")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("tpuemb: error: HEAD: not a revision git can read here")


@pytest.mark.usefixtures("repo")
def test_a_named_file_that_is_not_a_config() -> None:
    result = invoke("diff", "--against", "HEAD", "configs/notes.json")
    assert result.exit_code == 2
    # Named, it is judged by its content, as `check` judges it: no TPU embedding document (an
    # error, TE009, in the report) on either side.
    assert result.stderr == (
        "tpuemb: error: HEAD:configs/notes.json and configs/notes.json: cannot compare: they "
        "have errors (reported below)\n"
    )
    assert [line.split(" ")[1] for line in result.stdout.splitlines()[:-1]] == ["TE009"] * 2
    skipped = invoke("diff", "--against", "HEAD", "--documents-only", "configs/notes.json")
    assert (skipped.exit_code, skipped.stdout) == (0, "No changes (0 file pairs compared).\n")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _concise(result: Result) -> list[str]:
    """The report's lines, each cut after its kind of change."""
    return [line.split(": ")[0] + ": " + line.split(": ")[1] for line in result.stdout.splitlines()]


@pytest.mark.parametrize("named", [False, True], ids=["walked", "named-by-the-hook"])
def test_a_config_that_now_holds_garbage_or_bad_yaml_cannot_be_compared(
    repo: Path, named: bool
) -> None:
    # Tracked as configs at HEAD, no TPU embedding document now: not removed files (exit 0),
    # files whose other side does not load (exit 2).
    (repo / "configs" / "model.pbtxt").write_text("@@@ not a config\n")
    (repo / "configs" / "model.spec.yaml").write_text("tables: [\n  - {name\n")
    paths = ["configs"]
    if named:  # what the pre-commit hook passes
        paths = ["--documents-only", "configs/model.pbtxt", "configs/model.spec.yaml"]
    result = invoke("diff", "--against", "HEAD", *paths)
    assert (result.exit_code, result.stderr) == (
        2,
        "tpuemb: error: configs/model.pbtxt: cannot compare: it has errors (reported below)\n"
        "tpuemb: error: configs/model.spec.yaml: cannot compare: it has errors (reported "
        "below)\n",
    )
    assert result.stdout == (
        "configs/model.pbtxt:1:1: TE001 [error] expected a field name, found `@`\n"
        "configs/model.spec.yaml:2:3: TE001 [error] not valid YAML: expected the node content, "
        "but found '-'\n"
        "No changes; 2 invalid-syntax (1 file pair compared; 2 file pairs could not be "
        "compared).\n"
        if not named
        else "configs/model.pbtxt:1:1: TE001 [error] expected a field name, found `@`\n"
        "configs/model.spec.yaml:2:3: TE001 [error] not valid YAML: expected the node content, "
        "but found '-'\n"
        "No changes; 2 invalid-syntax (0 file pairs compared; 2 file pairs could not be "
        "compared).\n"
    )


def test_a_config_emptied_is_compared_not_removed(repo: Path) -> None:
    # Empty text format is an empty config (TensorFlow reads it so): compared. An empty spec is
    # no document: it cannot be compared.
    (repo / "configs" / "model.pbtxt").write_text("")
    (repo / "configs" / "model.spec.yaml").write_text("")
    result = invoke("diff", "--against", "HEAD", "configs")
    assert (result.exit_code, result.stderr) == (
        2,
        "tpuemb: error: configs/model.spec.yaml: cannot compare: it has errors (reported below)\n",
    )
    assert "removed since" not in result.stdout
    assert _concise(result) == [
        "HEAD:configs/model.pbtxt:1:1: TE953 [warning] orphaned-state",
        "HEAD:configs/model.pbtxt:14:1: TE954 [warning] training-change",
        "configs/model.pbtxt:1:1: TE954 [warning] training-change",
        "configs/model.pbtxt:1:1: TE955 [info] topology-change",
        "configs/model.pbtxt:1:1: TE955 [info] topology-change",
        "configs/model.spec.yaml: TE009 [error] not a TPU embedding document",
        "Found 5 changes: 1 orphaned-state, 2 training-change, 2 topology-change, 1 "
        "not-an-embedding-document (2 file pairs compared; 1 file pair could not be compared).",
    ]
