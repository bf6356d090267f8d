"""The GitHub Action (action.yml, issue 38 point 3), run as a runner runs it: each step of the
composite action, its `if:`, `env:` and `run:` with the inputs and `github.action_path`
substituted, in bash, with the variables a runner sets (GITHUB_WORKSPACE, GITHUB_EVENT_NAME,
GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT), in a temporary repository with a base
branch and a pull request's change -- and the checkout a runner has: actions/checkout's one
commit, without the base, which the action fetches."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


class Ran(NamedTuple):
    code: int
    log: str
    summary: str
    outputs: dict[str, str]


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _value(expression: str, inputs: dict[str, str]) -> str:
    """The few expressions action.yml uses: an input, the action's path, `inputs.x == 'v'`."""
    compared = re.fullmatch(r"inputs\.([\w-]+) == '([^']*)'", expression)
    if compared:
        return "true" if inputs[compared.group(1)] == compared.group(2) else "false"
    if expression == "github.action_path":
        return str(ROOT)
    name = re.fullmatch(r"inputs\.([\w-]+)", expression)
    assert name is not None, f"the harness does not know {expression!r}"
    return inputs[name.group(1)]


def _substituted(text: str, inputs: dict[str, str]) -> str:
    return EXPRESSION.sub(lambda found: _value(found.group(1), inputs), text)


def run_action(
    workspace: Path,
    given: dict[str, str],
    event: dict[str, Any] | None,
    python: Path = Path(sys.executable),
) -> Ran:
    """The action's steps on ``workspace``: ``event`` is a pull_request event's payload (None:
    a push); ``python``: the job's Python (this one: tpuemb installed)."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, unknown
    inputs.update(given)
    runner = workspace.parent / "runner"
    runner.mkdir(exist_ok=True)
    summary, outputs = runner / "summary.md", runner / "output.txt"
    summary.write_text(""), outputs.write_text("")
    env = {
        **os.environ,
        # The job's Python (tpuemb installed) first, as actions/setup-python leaves it.
        "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": "pull_request" if event is not None else "push",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
    }
    if event is not None:
        (runner / "event.json").write_text(json.dumps(event))
        env["GITHUB_EVENT_PATH"] = str(runner / "event.json")
    log, code = [], 0
    for step in ACTION["runs"]["steps"]:
        condition = step.get("if")
        if condition is not None and _substituted(condition, inputs) != "true":
            continue
        step_env = {key: _substituted(str(v), inputs) for key, v in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "-e", "-c", _substituted(step["run"], inputs)],
            cwd=workspace,
            env={**env, **step_env},
            capture_output=True,
            text=True,
            check=False,
        )
        log.append(done.stdout + done.stderr)
        code = done.returncode
        if code:
            break  # a failing step ends the job, as on a runner
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return Ran(code, "".join(log), summary.read_text(), written)


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose main branch holds a spec and a config, and the path of a bare copy
    pull requests are checked out from; returns (origin, base commit)."""
    work = tmp_path / "work"
    (work / "configs").mkdir(parents=True)
    _git(work, "init", "-q", "-b", "main")
    _git(work, "config", "user.email", "ci@example.org")
    _git(work, "config", "user.name", "CI")
    shutil.copyfile(
        ROOT / "examples" / "recommender.spec.yaml", work / "configs" / "model.spec.yaml"
    )
    shutil.copyfile(ROOT / "examples" / "adam_optimizer.pbtxt", work / "configs" / "adam.pbtxt")
    (work / "README.md").write_text("models\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "base")
    base = _git(work, "rev-parse", "HEAD")
    origin = tmp_path / "origin.git"
    _git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    return origin, base


def _pull_request(tmp_path: Path, origin: Path, change: dict[str, str], name: str) -> Path:
    """A branch with ``change`` (path -> text) pushed to ``origin``, checked out as
    actions/checkout does: one commit deep, the base not fetched."""
    work = tmp_path / f"pr-{name}"
    _git(tmp_path, "clone", "-q", str(origin), str(work))
    _git(work, "config", "user.email", "dev@example.org")
    _git(work, "config", "user.name", "Dev")
    _git(work, "checkout", "-q", "-b", name)
    for path, text in change.items():
        (work / path).write_text(text)
    _git(work, "commit", "-q", "-am", name)
    _git(work, "push", "-q", "origin", name)
    checkout = tmp_path / f"checkout-{name}" / "repo"
    checkout.parent.mkdir()
    _git(tmp_path, "clone", "-q", "--depth=1", "--branch", name, origin.as_uri(), str(checkout))
    return checkout


@pytest.mark.slow
def test_a_pull_request_that_adds_a_restore_error_fails_with_it(
    tmp_path: Path, repository: tuple[Path, str]
) -> None:
    origin, base = repository
    next_spec = (ROOT / "examples" / "changes" / "recommender.next.spec.yaml").read_text()
    checkout = _pull_request(tmp_path, origin, {"configs/model.spec.yaml": next_spec}, "widen")
    # The checkout has one commit: the base is fetched by the action.
    assert (
        subprocess.run(
            ["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=checkout, capture_output=True
        ).returncode
        != 0
    )
    ran = run_action(checkout, {"install": "false"}, {"pull_request": {"base": {"sha": base}}})
    assert ran.code == 1, ran.log
    assert ran.outputs["check-exit-code"] == "0" and ran.outputs["findings"] == "0"
    assert ran.outputs["diff-exit-code"] == "1" and int(ran.outputs["changes"]) >= 2
    assert re.search(
        r"^::error file=configs/model\.spec\.yaml,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,"
        r"title=TE951 restore-error::restoring fails",
        ran.log,
        re.MULTILINE,
    ), ran.log
    # The step summary is tpuemb's --format markdown: check's, then diff's, each changed file's
    # changes under its name.
    assert ran.summary.startswith("## tpuemb check\n\nAll checks passed (2 files checked).\n")
    assert f"## tpuemb diff\n\n1 changed files compared with `{base}` (exit code 1).\n" in (
        ran.summary
    )
    assert "### configs/model.spec.yaml\n" in ran.summary
    assert "| user_id | restore-error | error | tables\\[0\\].dim | 64 -&gt; 128 |" in ran.summary


@pytest.mark.slow  # a git repository and tpuemb run as on a runner: seconds each
def test_a_pull_request_that_changes_no_config_passes(
    tmp_path: Path, repository: tuple[Path, str]
) -> None:
    origin, base = repository
    checkout = _pull_request(tmp_path, origin, {"README.md": "models, documented\n"}, "docs")
    ran = run_action(
        checkout,
        {"install": "false", "paths": "configs"},
        {"pull_request": {"base": {"sha": base}}},
    )
    assert ran.code == 0, ran.log
    assert ran.outputs == {
        "check-exit-code": "0",
        "diff-exit-code": "",
        "findings": "0",
        "changes": "0",
    }
    assert f"No file under the paths changed since `{base}`." in ran.summary


@pytest.mark.slow  # a git repository and tpuemb run as on a runner: seconds each
def test_a_push_is_checked_and_not_compared(tmp_path: Path, repository: tuple[Path, str]) -> None:
    origin, _ = repository
    broken = 'table_descriptor { name: "t" vocabulary_size: 10 dimension: 0 }\n'
    checkout = _pull_request(tmp_path, origin, {"configs/adam.pbtxt": broken}, "broken")
    ran = run_action(checkout, {"install": "false", "summary": "false"}, None)
    assert ran.code == 1, ran.log
    assert ran.outputs["diff-exit-code"] == "" and ran.outputs["check-exit-code"] == "1"
    assert "::error file=configs/adam.pbtxt" in ran.log
    assert "tpuemb diff" not in ran.log and ran.summary == ""


@pytest.mark.slow  # a git repository and tpuemb run as on a runner: seconds each
def test_sarif_and_turning_check_off(tmp_path: Path, repository: tuple[Path, str]) -> None:
    origin, base = repository
    checkout = _pull_request(tmp_path, origin, {"README.md": "x\n"}, "sarif")
    ran = run_action(checkout, {"install": "false", "sarif": "tpuemb.sarif"}, None)
    assert ran.code == 0 and json.loads((checkout / "tpuemb.sarif").read_text())["runs"]
    ran = run_action(checkout, {"install": "false", "check": "false", "base": base}, None)
    assert ran.code == 0, ran.log
    # README.md changed: compared, skipped as no TPU embedding document (--documents-only).
    assert (ran.outputs["check-exit-code"], ran.outputs["diff-exit-code"]) == ("", "0")
    assert "## tpuemb check" not in ran.summary and "1 changed files compared" in ran.summary


@pytest.mark.slow  # a git repository and tpuemb run as on a runner: seconds each
def test_a_bad_input_or_base_is_an_error(tmp_path: Path, repository: tuple[Path, str]) -> None:
    origin, _ = repository
    checkout = _pull_request(tmp_path, origin, {"README.md": "x\n"}, "bad")
    ran = run_action(checkout, {"install": "false", "check": "yes"}, None)
    assert (
        ran.code == 2
        and "::error title=tpuemb action::input `check` must be true or false" in ran.log
    )
    ran = run_action(checkout, {"install": "false", "base": "0" * 40}, None)
    assert ran.code == 2 and "is not in the checkout and could not be fetched" in ran.log


def test_inputs_reach_the_script_through_env_only() -> None:
    # No input is pasted into a shell line (a pull request's branch name or a path could hold
    # `$(...)`): each `run:` names only the action's path.
    for step in ACTION["runs"]["steps"]:
        for expression in EXPRESSION.findall(step["run"]):
            assert expression == "github.action_path", step["run"]


@pytest.mark.slow
def test_the_install_step_installs_the_actions_checkout(
    tmp_path: Path, repository: tuple[Path, str]
) -> None:
    # As on a runner: a fresh Python without tpuemb; the action's first step installs it.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    origin, base = repository
    checkout = _pull_request(tmp_path, origin, {"README.md": "x\n"}, "install")
    event = {"pull_request": {"base": {"sha": base}}}
    ran = run_action(checkout, {}, event, python=venv / "bin" / "python")
    assert ran.code == 0, ran.log
    assert (venv / "bin" / "tpuemb").exists()
