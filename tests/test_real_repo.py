"""Discovery on a realistic repository: `tpuemb check .` at its root reports exactly the findings
of the configs with mistakes (tests/data/real-repo/manifest.json), in every format and in parallel;
everything else -- npm, editor, CI, Compose, Kubernetes and Helm files, other projects'
textprotos, SavedModels and their fingerprints, a checkpoint -- is checked and passes, or is
skipped as not a TPU embedding document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.model.findings import Severity

REPO = Path(__file__).parent / "data" / "real-repo"
MANIFEST = json.loads((REPO / "manifest.json").read_text())


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "tree", root)
    monkeypatch.chdir(root)
    return root


def _check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", "--isolated", *args])
    return result.exit_code, result.stdout


def test_the_manifest_names_every_file(tree: Path) -> None:
    files = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}
    named = {*MANIFEST["configs_clean"], *MANIFEST["configs_with_errors"], *MANIFEST["non_configs"]}
    assert files == named


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_check_dot_reports_exactly_the_mistakes(tree: Path, jobs: str) -> None:
    code, out = _check("--format", "json", "--jobs", jobs, ".")
    assert code == 1
    findings = json.loads(out)["findings"]
    by_file: dict[str, list[str]] = {}
    for finding in findings:
        by_file.setdefault(finding["file"].removeprefix("./"), []).append(finding["field"])
    assert set(by_file) == set(MANIFEST["configs_with_errors"])
    for file, field in MANIFEST["configs_with_errors"].items():
        assert all(f.startswith(field) for f in by_file[file]), (file, by_file[file])
    assert {f["severity"] for f in findings} == {"error"}


def test_every_format_agrees(tree: Path) -> None:
    _, concise = _check("--format", "concise", ".")
    files = {
        line.split(":", 1)[0].removeprefix("./") for line in concise.splitlines() if ": TE" in line
    }
    assert files == set(MANIFEST["configs_with_errors"])
    _, sarif = _check("--format", "sarif", ".")
    results = json.loads(sarif)["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert {uri.removeprefix("./") for uri in uris} == set(MANIFEST["configs_with_errors"])


def test_show_files_says_what_each_file_is(tree: Path) -> None:
    code, out = _check("--show-files", ".")
    assert code == 0
    shown = dict(line.split(": ", 1) for line in out.splitlines())
    shown = {name.removeprefix("./"): what for name, what in shown.items()}
    configs = {*MANIFEST["configs_clean"], *MANIFEST["configs_with_errors"]}
    assert {name for name, what in shown.items() if what == "checked"} - configs == {
        name for name in shown if name.endswith("saved_model.pb")
    }
    assert configs <= {name for name, what in shown.items() if what == "checked"}
    assert shown["docker-compose.yml"] == "skipped: its top-level fields are `version`, `services`"
    assert shown["models/ranker/1/fingerprint.pb"] == "skipped: a SavedModel fingerprint"
    assert shown["mediapipe/object_detection_desktop_tflite_graph.pbtxt"].startswith(
        "skipped: its `node`s"
    )


def test_a_named_non_config_is_one_clear_finding(tree: Path) -> None:
    code, out = _check("--format", "concise", "web/package.json", "data/schema.pbtxt")
    assert code == 1
    assert out.splitlines()[:2] == [
        "web/package.json: TE009 [error] not a TPU embedding document: its top-level fields are "
        "`name`, `version`, `description`, `main`, `license`, `private`, ...",
        "data/schema.pbtxt: TE009 [error] not a TPU embedding document: its `# proto-message:` "
        "header names Schema",
    ]


def test_files_tpuemb_does_not_read_are_skipped_unless_a_type_is_given(tree: Path) -> None:
    # What a pre-commit hook without a `files:` pattern passes: skipped, not linted as text.
    code, out = _check("--format", "concise", "README.md", "trainer/task.py")
    assert (code, out) == (0, "No files checked (2 inputs skipped).\n")
    code, _ = _check("--format", "concise", "--type", "TPUEmbeddingConfiguration", "README.md")
    assert code == 1


# Configurations planted in the tree: the API must find each as the CLI does.
CONFIGURATIONS = {
    "pyproject.toml": '[tool.tpuemb]\ntpu = "v5e"\n',
    "configs/experiments/.tpuemb.toml": 'ignore = ["TE301"]\n',
    "configs/export/.tpuemb.toml": (
        '[severity]\nTE207 = "warning"\n[per-file-ignores]\n"*.pb" = ["TE208"]\n'
    ),
}


def test_the_api_reports_what_check_reports_for_every_file(tree: Path) -> None:
    from tpuemb_cli import lint_file
    from tpuemb_cli.load.encodings import for_name

    for relative, text in CONFIGURATIONS.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_text(text)
    files = sorted(
        p.relative_to(tree).as_posix()
        for p in tree.rglob("*")
        if p.is_file() and for_name(p.name) is not None
    )
    assert len(files) > 20
    compared = 0
    for file in files:
        result = CliRunner().invoke(main, ["check", "--format", "json", file])
        assert result.exit_code in (0, 1), (file, result.output)
        cli = [
            (f["rule"], f["severity"], f["field"], f["line"], f["column"], f["message"])
            for f in json.loads(result.stdout)["findings"]
        ]
        api = [
            (
                f.rule,
                str(f.severity),
                f.field,
                f.position.line if f.position else None,
                f.position.column if f.position else None,
                f.message,
            )
            for f in lint_file(file)
        ]
        assert api == cli, file
        compared += bool(cli)
    assert compared >= 3  # files with findings, not only clean ones
    # The configurations are in force (a finding they turn off, and one they turn on).
    isolated = [(f.file, f.rule, f.severity) for p in files for f in lint_file(p, isolated=True)]
    configured = [(f.file, f.rule, f.severity) for p in files for f in lint_file(p)]
    assert set(isolated) - set(configured) == {
        ("configs/experiments/clipped_sgd.pbtxt", "TE301", Severity.ERROR),
        ("configs/export/ftrl_tables.pb", "TE207", Severity.ERROR),
        ("configs/export/ftrl_tables.pb", "TE208", Severity.ERROR),
    }
    assert set(configured) - set(isolated) == {
        ("configs/export/ftrl_tables.pb", "TE207", Severity.WARNING)
    }
