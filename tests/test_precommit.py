"""The real pre-commit runs our hook definitions on a scratch repository.

pre-commit builds the hook's environment from this checkout (`pre-commit try-repo`), which takes
a pip install from the package index, so this is the slowest test of the suite (about 30 s).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .built_tree import FINDINGS, build
from .helpers import CLEAN, OPTIMS

ROOT = Path(__file__).resolve().parent.parent
BROKEN = CLEAN.replace("table_id: 0", "table_id: 1")
SAVED_MODEL = (
    ROOT / "tests" / "data" / "real-repo" / "tree" / "models" / "ranker" / "1" / "saved_model.pb"
)
# Each test builds the hook's environment with pip: `make test-slow`, not `make test`.
pytestmark = pytest.mark.slow


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    if not (ROOT / ".git").exists():
        pytest.fail("the pre-commit test needs the tpuemb checkout to be a git repository")
    repo = tmp_path_factory.mktemp("scratch")
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "ci@example.com")
    _git(repo, "config", "user.name", "CI")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))
    env.pop("GITHUB_ACTIONS", None)
    return repo, env


def _try_repo(
    repo: Path, env: dict[str, str], hook: str, *files: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--files", *files]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_hook_passes_a_good_config_and_fails_a_bad_one(
    scratch: tuple[Path, dict[str, str]],
) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is required")
    repo, env = scratch
    (repo / "good.pbtxt").write_text(CLEAN)
    (repo / "bad.pbtxt").write_text(BROKEN)
    _git(repo, "add", ".")
    good = _try_repo(repo, env, "tpuemb", "good.pbtxt")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "tpuemb" in good.stdout and "Passed" in good.stdout
    bad = _try_repo(repo, env, "tpuemb", "good.pbtxt", "bad.pbtxt")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout
    assert "bad.pbtxt:14:38: TE407 [error]" in bad.stdout


def test_fix_hook_fixes_and_reports(scratch: tuple[Path, dict[str, str]]) -> None:
    repo, env = scratch
    fixable = CLEAN.replace(
        "gradient_accumulation_status: ENABLED",
        "gradient_accumulation_status: ENABLED\n"
        "    multiply_weight_decay_factor_by_learning_rate: true",
    )
    (repo / "fixable.pbtxt").write_text(fixable)
    _git(repo, "add", ".")
    result = _try_repo(repo, env, "tpuemb-fix", "fixable.pbtxt")
    # pre-commit fails a hook that changed files, so the user sees and stages the fix.
    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout
    assert (repo / "fixable.pbtxt").read_text() == CLEAN


def test_hook_on_a_realistic_repository_reports_only_the_configs_mistakes(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # The hook's pattern matches every .json, .yaml and .pb of the repository (npm, Compose,
    # Kubernetes, SavedModels...); tpuemb skips those that are not TPU embedding documents.
    repo = tmp_path_factory.mktemp("realistic")
    shutil.copytree(ROOT / "tests" / "data" / "real-repo" / "tree", repo, dirs_exist_ok=True)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))
    env.pop("GITHUB_ACTIONS", None)
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "tpuemb", "--all-files"]
    run = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    reported = {
        line.split(":", 1)[0]
        for line in run.stdout.splitlines()
        if ": TE" in line and "[error]" in line
    }
    assert reported == {"configs/experiments/clipped_sgd.pbtxt", "configs/export/ftrl_tables.pb"}


def _hook_repository(folder: Path) -> tuple[str, str]:
    """This checkout as a `repo:` and `rev:` for pre-commit: HEAD, or, when tracked files have
    uncommitted changes, a commit of them in a clone in ``folder`` (as `try-repo` does)."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    identity = ["-c", "user.name=tpuemb tests", "-c", "user.email=tests@example.com"]
    stash = subprocess.run(
        ["git", *identity, "stash", "create"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    if not stash:
        return str(ROOT), head
    clone = folder / "tpuemb"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    _git(clone, "fetch", "-q", str(ROOT), stash)
    _git(clone, "branch", "-q", "working-tree", stash)
    return str(clone), stash


def test_the_readmes_narrowed_hook_on_a_realistic_repository(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # The README narrows the hook with `files: ^configs/`, which replaces the hook's extension
    # pattern: configs/NOTES.md and configs/gen.py are passed to tpuemb too, and skipped.
    assert "files: ^configs/" in (ROOT / "README.md").read_text()
    repo = tmp_path_factory.mktemp("built")
    build(repo)
    source, rev = _hook_repository(tmp_path_factory.mktemp("hook-repository"))
    config = repo / ".pre-commit-config.yaml"
    narrowed = config.read_text()
    assert "files: ^configs/" in narrowed
    config.write_text(
        narrowed.replace("https://github.com/tpuemb/tpuemb", source).replace("v0.1.0", rev)
    )
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))
    env.pop("GITHUB_ACTIONS", None)
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    run = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    reported = set()
    for line in run.stdout.splitlines():
        match = re.match(r"(\S+?)(?::(\d+):(\d+))?: (TE\d+) \[", line)
        if match:
            file, row, column, rule = match.groups()
            reported.add((file, int(row) if row else None, int(column) if column else None, rule))
    assert reported == FINDINGS
    assert "NOTES.md" not in run.stdout and "gen.py" not in run.stdout
    # 85 files under configs/: the three that are not documents are skipped, not checked.
    assert "Found 11 errors, 1 warning in 5 files (82 files checked)." in run.stdout.splitlines()


def test_diff_hook_fails_a_change_that_breaks_restoring_a_checkpoint(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    repo = tmp_path_factory.mktemp("diff-hook")
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "ci@example.com")
    _git(repo, "config", "user.name", "CI")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))
    env.pop("GITHUB_ACTIONS", None)
    (repo / "model.pbtxt").write_text(CLEAN)
    (repo / "package.json").write_text('{"name": "web"}\n')
    # Files the hook's pattern matches that have no checkpoint layout: optimizer parameters in
    # binary and text, and a SavedModel.
    shutil.copy(OPTIMS / "adagrad_clip_all.pb", repo / "adagrad.pb")
    (repo / "adagrad.pbtxt").write_text(
        "# proto-message: OptimizationParameters\nadagrad {}\nlearning_rate { constant: 0.1 }\n"
    )
    (repo / "model").mkdir()
    shutil.copy(SAVED_MODEL, repo / "model" / "saved_model.pb")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "first")
    # A learning rate: the checkpoint restores; the hook passes.
    (repo / "model.pbtxt").write_text(CLEAN.replace("0.05", "0.1"))
    _git(repo, "add", ".")
    passed = _try_repo(repo, env, "tpuemb-diff", "model.pbtxt", "package.json")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    # A dimension: restoring fails; the hook fails and says where -- and only that, though the
    # commit also changes the optimizer files and the SavedModel.
    (repo / "model.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 32"))
    (repo / "adagrad.pbtxt").write_text(
        "# proto-message: OptimizationParameters\nadagrad {}\nlearning_rate { constant: 0.2 }\n"
    )
    (repo / "adagrad.pb").write_bytes((repo / "adagrad.pb").read_bytes()[:-2])
    saved = repo / "model" / "saved_model.pb"
    saved.write_bytes(saved.read_bytes() + b"\x12\x00")
    _git(repo, "add", ".")
    staged = ["model.pbtxt", "package.json", "adagrad.pb", "adagrad.pbtxt", "model/saved_model.pb"]
    failed = _try_repo(repo, env, "tpuemb-diff", *staged)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    output = failed.stdout.split("- hook id")[-1]
    assert "model.pbtxt:4:3: TE951 [error] restore-error: restoring fails" in output
    assert "Found 1 change: 1 restore-error (1 file pair compared)." in output, output
    assert "tpuemb: error" not in output and "package.json" not in output


README = (ROOT / "README.md").read_text(encoding="utf-8")


def _readme_precommit_config() -> str:
    """The README's `.pre-commit-config.yaml` snippet, with its placeholders made real: this
    checkout's path and HEAD's commit (what a user's clone and `git rev-parse HEAD` give)."""
    match = re.search(r"```yaml\n(\s*repos:\n.*?)```", README, re.DOTALL)
    assert match is not None, "the README has no pre-commit snippet"
    snippet = match.group(1)
    assert (
        "repo: /path/to/tpuemb" in snippet
        and "rev: 0000000000000000000000000000000000000000" in snippet
    )
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    lines = [line.removeprefix("   ") for line in snippet.splitlines()]
    text = "\n".join(lines) + "\n"
    return text.replace("/path/to/tpuemb", str(ROOT)).replace("0" * 40, head)


def test_the_readmes_pre_commit_snippet_works_as_written(
    scratch: tuple[Path, dict[str, str]],
) -> None:
    repo, env = scratch
    (repo / ".pre-commit-config.yaml").write_text(_readme_precommit_config())
    (repo / "good.pbtxt").write_text(CLEAN)
    (repo / "bad.pbtxt").write_text(BROKEN)
    _git(repo, "add", ".")
    command = [sys.executable, "-m", "pre_commit", "run", "--files", "good.pbtxt", "bad.pbtxt"]
    result = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "bad.pbtxt:14:38: TE407 [error]" in result.stdout
    good = subprocess.run(
        [*command[:-2], "--files", "good.pbtxt"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert good.returncode == 0, good.stdout + good.stderr


def test_the_readmes_install_from_a_clone_works(tmp_path: Path) -> None:
    # "pip install /path/to/tpuemb": into a fresh environment, then the command runs.
    assert "pip install /path/to/tpuemb   # a clone of this repository" in README
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT)]
    installed = subprocess.run(pip, capture_output=True, text=True, timeout=900, check=False)
    assert installed.returncode == 0, installed.stderr
    (tmp_path / "bad.pbtxt").write_text(BROKEN)
    run = subprocess.run(
        [str(venv / "bin" / "tpuemb"), "check", "--format", "concise", "bad.pbtxt"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert "bad.pbtxt:14:38: TE407 [error]" in run.stdout
