"""`tpuemb diff --against REF [PATH...]` in a scratch git repository: each config or spec
under the paths against its version at the revision, files added and removed since, and a
revision git cannot read (exit 2); each path in the repository that holds it, paired by its path
from that repository's top (`..`, dot-folders, absolute paths, run from outside the repository,
two repositories), renames as git finds them, and a config that no longer loads (issue 24,
point 5)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

EXAMPLES = Path(__file__).parent.parent / "examples"

# A config new in the second commit: unlike the one removed in it, so that git finds no rename.
OTHER = """\
table_descriptor {
  name: "ads"
  vocabulary_size: 77
  dimension: 4
  optimization_parameters { stochastic_gradient_descent {} learning_rate { constant: 1.5 } }
}
mode: INFERENCE
num_hosts: 2
num_tensor_cores: 16
feature_descriptor { name: "clicked" table_id: 0 input_shape: 3 }
"""
SPEC = (
    "tables:\n  - {name: user, vocabulary_size: 100, dim: 8}\n"
    "optimizer: {adagrad: {}}\nfeatures:\n  - {name: f, table: user, input_shape: [16]}\n"
    "topology: {num_hosts: 1, cores_per_host: 4}\n"
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _new_repository(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "-q")
    _git(folder, "config", "user.email", "ci@example.com")
    _git(folder, "config", "user.name", "CI")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is required")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    _new_repository(tmp_path)
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
    (configs / "new.pbtxt").write_text(OTHER)
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
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "tpuemb: error: no-such-branch: not a revision git can read in the repository at ., "
        "which holds configs (fetch it, or name another)\n",
    )
    result = invoke("diff", "--against", "--help-me", "configs")
    assert (result.exit_code, result.stderr) == (2, "tpuemb: error: '--help-me': not a revision\n")


def test_outside_a_repository_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "a.pbtxt").write_text(CLEAN)
    result = invoke("diff", "--against", "HEAD", "a.pbtxt")
    assert (result.exit_code, result.stdout) == (2, "")
    # git's own words follow (they differ between its versions)
    assert result.stderr.startswith(
        "tpuemb: error: a.pbtxt: cannot compare with HEAD: not a git repository"
    )
    assert result.stderr.count("\n") == 1


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
        # The lint findings say why; the summary counts changes only (issue 38).
        "No changes (1 file pair compared; 2 file pairs could not be compared).\n"
        if not named
        else "configs/model.pbtxt:1:1: TE001 [error] expected a field name, found `@`\n"
        "configs/model.spec.yaml:2:3: TE001 [error] not valid YAML: expected the node content, "
        "but found '-'\n"
        "Nothing compared (2 file pairs could not be compared).\n"
    )


def test_a_config_emptied_cannot_be_compared(repo: Path) -> None:
    # An emptied config (a bad merge, a truncated write) would read as a config without tables
    # and pass the gate; an empty spec is no document. Neither is "removed".
    (repo / "configs" / "model.pbtxt").write_text("")
    (repo / "configs" / "model.spec.yaml").write_text("")
    result = invoke("diff", "--against", "HEAD", "configs")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "tpuemb: error: configs/model.pbtxt: cannot compare: it has errors (reported below)",
        "tpuemb: error: configs/model.spec.yaml: cannot compare: it has errors (reported below)",
    ]
    assert "removed since" not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "configs/model.pbtxt:1:1: TE009 [error] not a TPU embedding document: it has no fields "
        "(an empty or emptied file?)"
    )
    assert lines[1].startswith("configs/model.spec.yaml: TE009 [error] not a TPU embedding ")
    assert lines[2:] == ["No changes (1 file pair compared; 2 file pairs could not be compared)."]


RESTORE_ERROR_IN_THE_RENAMED_SPEC = (
    "configs/ranker.spec.yaml:2:40: TE951 [error] restore-error: restoring fails: the "
    "checkpoint's `user` has shape (100, 16), the new `user` (100, 32) (TensorFlow: Received "
    "incompatible tensor with shape ...)"
)


def test_a_file_moved_with_git_mv_and_changed_is_compared_with_its_old_self(repo: Path) -> None:
    _git(repo, "mv", "configs/model.spec.yaml", "configs/ranker.spec.yaml")
    _edit(repo / "configs" / "ranker.spec.yaml", "dim: 16", "dim: 32")  # not staged
    (repo / "configs" / "deep").mkdir()
    _git(repo, "mv", "outside.pbtxt", "configs/deep/outside.pbtxt")
    _edit(repo / "configs" / "deep" / "outside.pbtxt", "dimension: 8", "dimension: 32")
    _git(repo, "add", "configs/deep/outside.pbtxt")  # staged
    moved = (
        "configs/deep/outside.pbtxt:4:3: TE951 [error] restore-error: restoring fails: the "
        "checkpoint's `video` has shape (1000, 8), the new `video` (1000, 32) (TensorFlow: "
        "Received incompatible tensor with shape ...)"
    )
    result = invoke("diff", "--against", "HEAD", "configs")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout.splitlines() == [
        moved,
        RESTORE_ERROR_IN_THE_RENAMED_SPEC,
        "Found 2 changes: 2 restore-error (4 file pairs compared).",
    ]
    # The pre-commit hook names the new paths only (no deleted file), each alone.
    for path, change in [
        ("configs/ranker.spec.yaml", RESTORE_ERROR_IN_THE_RENAMED_SPEC),
        ("configs/deep/outside.pbtxt", moved),
    ]:
        hook = invoke("diff", "--against", "HEAD", "--documents-only", path)
        assert (hook.exit_code, hook.stderr) == (1, "")
        assert hook.stdout.splitlines() == [
            change,
            "Found 1 change: 1 restore-error (1 file pair compared).",
        ]
    # Named by its old path, a moved file is followed to its new one.
    old = invoke("diff", "--against", "HEAD", "outside.pbtxt")
    assert (old.exit_code, old.stderr) == (1, "")
    assert old.stdout.splitlines()[0] == moved
    # Committed, the move is still followed from the revision before it.
    _git(repo, "commit", "-qam", "third")
    committed = invoke("diff", "--against", "HEAD~1", "configs/ranker.spec.yaml")
    assert (committed.exit_code, committed.stdout.splitlines()) == (
        1,
        [
            RESTORE_ERROR_IN_THE_RENAMED_SPEC,
            "Found 1 change: 1 restore-error (1 file pair compared).",
        ],
    )


def test_a_named_file_in_a_dot_folder_is_compared_and_walks_skip_dot_folders(repo: Path) -> None:
    hidden = repo / ".cfg"
    hidden.mkdir()
    (hidden / "h.pbtxt").write_text(CLEAN)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "third")
    _edit(hidden / "h.pbtxt", "dimension: 16", "dimension: 64")
    change = (
        ".cfg/h.pbtxt:4:3: TE951 [error] restore-error: restoring fails: the checkpoint's "
        "`video` has shape (1000, 16), the new `video` (1000, 64) (TensorFlow: Received "
        "incompatible tensor with shape ...)"
    )
    for named in (".cfg/h.pbtxt", ".cfg", "./.cfg/"):
        result = invoke("diff", "--against", "HEAD", named)
        assert (result.exit_code, result.stderr) == (1, ""), named
        assert result.stdout.splitlines() == [
            change,
            "Found 1 change: 1 restore-error (1 file pair compared).",
        ]
    # Walking the folder above it skips it, at the revision as now.
    walked = invoke("diff", "--against", "HEAD", ".")
    assert (walked.exit_code, walked.stdout) == (0, "No changes (4 file pairs compared).\n")


def test_from_a_subfolder_through_dot_dot(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "configs")
    result = invoke("diff", "--against", "HEAD~1", "..")
    assert (result.exit_code, result.stderr) == (1, "")
    assert _concise(result) == [
        "../configs/model.pbtxt:6:5: TE952 [error] silent-reinit",
        "../configs/model.pbtxt:6:5: TE952 [error] silent-reinit",
        "../configs/model.pbtxt:6:5: TE953 [warning] orphaned-state",
        "../configs/model.pbtxt:6:5: TE954 [warning] training-change",
        "../configs/model.spec.yaml:2:40: TE951 [error] restore-error",
        "../configs/new.pbtxt:1:1: TE956 [info] cosmetic",
        "../outside.pbtxt:4:3: TE951 [error] restore-error",
        "HEAD~1:../configs/gone.pbtxt:1:1: TE953 [warning] orphaned-state",
        "Found 8 changes: 2 restore-error, 2 silent-reinit, 2 orphaned-state, 1 "
        "training-change, 1 cosmetic (5 file pairs compared).",
    ]
    named = invoke("diff", "--against", "HEAD~1", "../outside.pbtxt", "model.spec.yaml")
    assert (named.exit_code, named.stderr) == (1, "")
    assert _concise(named) == [
        "../outside.pbtxt:4:3: TE951 [error] restore-error",
        "model.spec.yaml:2:40: TE951 [error] restore-error",
        "Found 2 changes: 2 restore-error (2 file pairs compared).",
    ]


def test_absolute_paths_from_outside_the_repository(
    repo: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(elsewhere.parent))
    result = invoke(
        "diff", "--against", "HEAD~1", str(repo / "outside.pbtxt"), str(repo / "configs")
    )
    assert (result.exit_code, result.stderr) == (1, "")
    lines = _concise(result)
    assert lines[0] == f"{repo}/configs/model.pbtxt:6:5: TE952 [error] silent-reinit"
    assert f"HEAD~1:{repo}/configs/gone.pbtxt:1:1: TE953 [warning] orphaned-state" in lines
    assert f"{repo}/outside.pbtxt:4:3: TE951 [error] restore-error" in lines
    assert lines[-1] == (
        "Found 8 changes: 2 restore-error, 2 silent-reinit, 2 orphaned-state, 1 "
        "training-change, 1 cosmetic (5 file pairs compared)."
    )
    relative = invoke("diff", "--against", "HEAD~1", os.path.relpath(repo / "outside.pbtxt"))
    assert _concise(relative) == [
        f"{os.path.relpath(repo / 'outside.pbtxt')}:4:3: TE951 [error] restore-error",
        "Found 1 change: 1 restore-error (1 file pair compared).",
    ]


def test_paths_in_two_repositories_each_against_its_own_revision(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("other")
    _new_repository(other)
    (other / "b.pbtxt").write_text(CLEAN)
    _git(other, "add", ".")
    _git(other, "commit", "-qm", "only")
    _edit(other / "b.pbtxt", "dimension: 16", "dimension: 48")
    # A repository inside the folder walked (not tracked by the outer one): its own HEAD.
    inner = repo / "vendored"
    _new_repository(inner)
    (inner / "c.pbtxt").write_text(CLEAN)
    (inner / "d.pbtxt").write_text(OTHER)
    _git(inner, "add", ".")
    _git(inner, "commit", "-qm", "only")
    _edit(inner / "c.pbtxt", "dimension: 16", "dimension: 24")
    (inner / "d.pbtxt").unlink()
    shown = os.path.relpath(other / "b.pbtxt")
    result = invoke("diff", "--against", "HEAD", str(other / "b.pbtxt"), ".")
    assert (result.exit_code, result.stderr) == (1, "")
    assert _concise(result) == [
        f"{other}/b.pbtxt:4:3: TE951 [error] restore-error",
        "HEAD:vendored/d.pbtxt:1:1: TE953 [warning] orphaned-state",
        "vendored/c.pbtxt:4:3: TE951 [error] restore-error",
        "Found 3 changes: 2 restore-error, 1 orphaned-state (7 file pairs compared).",
    ]
    # HEAD~1: the other repository has no such commit; this one's files are still compared.
    result = invoke("diff", "--against", "HEAD~1", shown, "outside.pbtxt")
    assert result.exit_code == 2
    assert result.stderr == (
        f"tpuemb: error: HEAD~1: not a revision git can read in the repository at "
        f"{os.path.relpath(other)}, which holds {shown} (fetch it, or name another)\n"
    )
    assert _concise(result) == [
        "outside.pbtxt:4:3: TE951 [error] restore-error",
        "Found 1 change: 1 restore-error (1 file pair compared).",
    ]


def test_missing_and_unreadable_paths_are_errors_and_the_rest_is_compared(repo: Path) -> None:
    os.mkfifo(repo / "configs" / "pipe.pbtxt")  # found by the walk: never read (it could block)
    result = invoke("diff", "--against", "HEAD~1", "configs", "no-such.pbtxt", "-", "")
    assert result.exit_code == 2
    assert result.stderr == (
        "tpuemb: error: -: --against compares files with their versions in git, not standard "
        "input\n"
        "tpuemb: error: '': no such file or directory\n"
        "tpuemb: error: no-such.pbtxt: no such file or directory, now or at HEAD~1\n"
        "tpuemb: error: configs/pipe.pbtxt: not a regular file\n"
    )
    assert result.stdout.splitlines()[-1] == (
        "Found 7 changes: 1 restore-error, 2 silent-reinit, 2 orphaned-state, 1 training-change, "
        "1 cosmetic (4 file pairs compared)."
    )


def test_a_folder_removed_since(repo: Path) -> None:
    shutil.rmtree(repo / "configs")
    result = invoke("diff", "--against", "HEAD", "configs")
    assert (result.exit_code, result.stderr) == (0, "")
    assert _concise(result) == [
        "HEAD:configs/model.pbtxt:1:1: TE953 [warning] orphaned-state",
        "HEAD:configs/model.spec.yaml:1:1: TE953 [warning] orphaned-state",
        "HEAD:configs/new.pbtxt:1:1: TE953 [warning] orphaned-state",
        "Found 3 changes: 3 orphaned-state (3 file pairs compared).",
    ]


def test_an_unchanged_file_with_errors_is_no_change(repo: Path) -> None:
    # Issue 38: `diff --against HEAD examples/` on the untouched repository exited 2 ("cannot
    # compare: they have errors") for the unchanged Keras example, and its summary counted lint
    # rules among the kinds of change. An untouched file is no change; its errors are check's.
    shutil.copyfile(EXAMPLES / "keras" / "ranking.keras", repo / "configs" / "ranking.keras")
    broken = CLEAN.replace("adagrad {}", "adagrad {} learning_rate { dynamic { tag: -1 } }")
    (repo / "configs" / "broken.pbtxt").write_text(broken)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "third")
    assert "TE101" in invoke("check", "--format", "concise", "configs/broken.pbtxt").stdout
    result = invoke("diff", "--against", "HEAD", "configs/")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "No changes (5 file pairs compared).\n"
    # Changed, it is judged: its errors make it a pair that cannot be compared, and they are
    # said, not counted as changes.
    (repo / "configs" / "broken.pbtxt").write_text(broken.replace("dimension: 16", "dimension: 8"))
    result = invoke("diff", "--against", "HEAD", "configs/broken.pbtxt")
    assert result.exit_code == 2
    assert result.stdout.splitlines()[-1] == "Nothing compared (1 file pair could not be compared)."
