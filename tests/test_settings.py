"""Configuration: discovery, the keys, their errors, and the matching command-line flags."""

from __future__ import annotations

import io
import json
import os
import traceback
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

# TE105 (warning) on line 7, TE406 (warning) for an unused second table.
WARNS = CLEAN.replace("constant: 0.05 }", "constant: 0 }")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def rules_of(result: Result) -> list[str]:
    return [f["rule"] for f in json.loads(result.stdout)["findings"]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "model.pbtxt").write_text(WARNS)
    return tmp_path


def test_no_configuration(project: Path) -> None:
    assert rules_of(invoke("check", "--format", "json", "configs")) == ["TE105"]


def test_pyproject_ignore_and_severity(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.tpuemb]\nseverity = { zero-learning-rate = "error" }\n'
    )
    result = invoke("check", "--format", "json", "configs")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["findings"][0]["severity"] == "error"
    (project / "pyproject.toml").write_text('[tool.tpuemb]\nignore = ["TE1"]\n')
    assert rules_of(invoke("check", "--format", "json", "configs")) == []


def test_nearest_configuration_wins(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tpuemb]\nignore = ["TE105"]\n')
    assert rules_of(invoke("check", "--format", "json", "configs")) == []
    (project / "configs" / ".tpuemb.toml").write_text('select = ["TE"]\n')
    assert rules_of(invoke("check", "--format", "json", "configs")) == ["TE105"]


def test_pyproject_without_our_table_is_passed_over(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tpuemb]\nignore = ["TE105"]\n')
    (project / "configs" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    assert rules_of(invoke("check", "--format", "json", "configs")) == []


def test_config_flag_and_isolated(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tpuemb]\nignore = ["TE105"]\n')
    other = project / "strict.toml"
    other.write_text('fail-level = "warning"\n')
    result = invoke("check", "--format", "json", "--config", str(other), "configs")
    assert (result.exit_code, rules_of(result)) == (1, ["TE105"])
    assert rules_of(invoke("check", "--format", "json", "--isolated", "configs")) == ["TE105"]


def test_unknown_key_and_rule_are_errors_naming_the_file(project: Path) -> None:
    config = project / ".tpuemb.toml"
    config.write_text('selct = ["TE"]\n')
    result = invoke("check", "configs")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"tpuemb: error: {config}:1:1: `selct`: unknown key")
    config.write_text('ignore = ["TE999"]\n')
    result = invoke("check", "configs")
    assert result.exit_code == 2
    assert f"{config}:1:1: `ignore`: unknown rule 'TE999'" in result.stderr
    config.write_text('severity = { TE105 = "fatal" }\n')
    assert "unknown severity 'fatal'" in invoke("check", "configs").stderr
    config.write_text("select = [\n")
    assert "not valid TOML" in invoke("check", "configs").stderr


def test_unknown_names_suggest_the_nearest_known_one(project: Path) -> None:
    config = project / ".tpuemb.toml"
    for toml, message in (
        ('selct = ["TE"]\n', "1:1: `selct`: unknown key; did you mean `select`?"),
        (
            'extend_select = ["TE"]\n',
            "1:1: `extend_select`: unknown key; did you mean `extend-select`?",
        ),
        (
            '[[suppress]]\nfile = "a.json"\nrule = ["TE105"]\nreason = "r"\n',
            "3:1: `suppress[0].rule`: unknown key; did you mean `rules`?",
        ),
        (
            'ignore = ["unused-tabel"]\n',
            "1:1: `ignore`: unknown rule 'unused-tabel'; did you mean `unused-table`?",
        ),
        (
            '[severity]\nzero_learning_rate = "info"\n',
            "2:1: `severity.zero_learning_rate`: unknown rule 'zero_learning_rate'; did you "
            "mean `zero-learning-rate`?",
        ),
        # Nothing close: the known keys; codes are numbers, and closeness among them means
        # nothing.
        (
            'colour = "auto"\n',
            "1:1: `colour`: unknown key (known: exclude, extend-select, fail-level, ignore, "
            "keras-backend, per-file-ignores, require-reason, select, severity, stats, "
            "stats-headroom, suppress, tpu)",
        ),
        ('ignore = ["TE999"]\n', "1:1: `ignore`: unknown rule 'TE999' (`tpuemb rules` lists them)"),
    ):
        config.write_text(toml)
        result = invoke("check", "configs")
        assert (result.exit_code, result.stderr) == (2, f"tpuemb: error: {config}:{message}\n")
    config.unlink()
    bad = invoke("check", "--ignore", "zero-learnig-rate", "configs")
    assert (bad.exit_code, bad.stderr) == (
        2,
        "tpuemb: error: unknown rule 'zero-learnig-rate'; did you mean `zero-learning-rate`?\n",
    )


def test_per_file_ignores_and_exclude(project: Path) -> None:
    (project / "legacy").mkdir()
    (project / "legacy" / "old.pbtxt").write_text(WARNS)
    (project / ".tpuemb.toml").write_text(
        '[per-file-ignores]\n"legacy/**" = ["zero-learning-rate"]\n'
    )
    result = json.loads(invoke("check", "--format", "json", ".").stdout)
    assert [(f["file"], f["rule"]) for f in result["findings"]] == [
        ("configs/model.pbtxt", "TE105")
    ]
    (project / ".tpuemb.toml").write_text('exclude = ["configs/"]\n')
    result = json.loads(invoke("check", "--format", "json", ".").stdout)
    assert result["summary"]["files_checked"] == 1
    assert {f["file"] for f in result["findings"]} == {"legacy/old.pbtxt"}


def test_cli_select_ignore_fail_level_exit_zero(project: Path) -> None:
    assert rules_of(invoke("check", "--format", "json", "--select", "TE4", "configs")) == []
    assert rules_of(invoke("check", "--format", "json", "--ignore", "TE105", "configs")) == []
    assert invoke("check", "configs").exit_code == 0
    assert invoke("check", "--fail-level", "warning", "configs").exit_code == 1
    assert invoke("check", "--fail-level", "warning", "--exit-zero", "configs").exit_code == 0
    bad = invoke("check", "--select", "TE999", "configs")
    assert bad.exit_code == 2 and "unknown rule 'TE999'" in bad.stderr


def test_stdin_filename_drives_discovery_and_per_file_ignores(project: Path) -> None:
    (project / "configs" / ".tpuemb.toml").write_text(
        '[per-file-ignores]\n"model.pbtxt" = ["TE105"]\n'
    )
    runner = CliRunner()
    named = runner.invoke(
        main,
        ["check", "--format", "json", "-", "--stdin-filename", "configs/model.pbtxt"],
        input=WARNS,
    )
    assert json.loads(named.stdout)["findings"] == []
    unnamed = runner.invoke(main, ["check", "--format", "json", "-"], input=WARNS)
    assert [f["rule"] for f in json.loads(unnamed.stdout)["findings"]] == ["TE105"]


def _as_nobody(folder: Path, *paths: str) -> list[Any]:
    """``tpuemb check --format concise PATHS`` run in ``folder`` by an unprivileged user (uid
    65534, in a forked child): [exit code, stdout, stderr]."""
    from tpuemb_cli.cli.check import CheckOptions, execute
    from tpuemb_cli.cli.common import Streams

    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 70
        try:
            os.close(reader)
            os.chdir(folder)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            out, err = io.StringIO(), io.StringIO()
            code = execute(CheckOptions(paths=list(paths)), Streams(out, err))
            with os.fdopen(writer, "w") as stream:
                json.dump([code, out.getvalue(), err.getvalue()], stream)
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(writer)
    with os.fdopen(reader) as stream:
        payload = stream.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0, "the unprivileged run raised (its traceback is above)"
    result: list[Any] = json.loads(payload)
    return result


@pytest.mark.skipif(
    not hasattr(os, "fork") or not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="needs root, to become an unprivileged user",
)
def test_a_folder_that_cannot_be_searched_ends_discovery(tmp_path: Path) -> None:
    # closed/ (0700, root's) holds the project: the unprivileged user works in closed/project
    # (entered before dropping privileges, as a container's working directory is) but cannot
    # search closed/ or pass it by an absolute path.
    closed = tmp_path / "closed"
    project = closed / "project"
    (project / "configs").mkdir(parents=True)
    for folder in (tmp_path, project, project / "configs"):
        folder.chmod(0o755)
    closed.chmod(0o700)
    (project / "configs" / "model.pbtxt").write_text(WARNS)
    # In and above the closed folder: never read (discovery ends at closed/, with the defaults).
    (closed / ".tpuemb.toml").write_text('ignore = ["TE105"]\n')
    (tmp_path / "pyproject.toml").write_text('[tool.tpuemb]\nignore = ["TE105"]\n')
    warned = [
        0,
        "configs/model.pbtxt:7:21: TE105 [warning] the learning rate is 0, so this table's "
        "embeddings never change during training\nFound 1 warning in 1 file (1 file checked).\n",
        "",
    ]
    assert _as_nobody(project, "configs") == warned
    assert _as_nobody(project / "configs", "model.pbtxt")[0] == 0
    # Below the working directory, a configuration is found by its relative path.
    (project / ".tpuemb.toml").write_text('ignore = ["TE105"]\n')
    assert _as_nobody(project, "configs") == [0, "All checks passed (1 file checked).\n", ""]
    # A configuration that is there but cannot be read is an error that names it (exit 2).
    (project / ".tpuemb.toml").chmod(0o600)
    code, out, err = _as_nobody(project, "configs")
    assert (code, out) == (2, "")  # a configuration error stops the run: no report
    assert err == f"tpuemb: error: {project / '.tpuemb.toml'}: cannot read: Permission denied\n"


@pytest.mark.parametrize("mode", [(), ("--add-suppressions",), ("--fix",)])
def test_a_broken_pyproject_is_an_error_naming_file_and_line(
    project: Path, mode: tuple[str, ...]
) -> None:
    # An invalid pyproject.toml was taken for one without [tool.tpuemb]: every ignore and
    # suppression in it silently dropped, and --add-suppressions went on to write elsewhere.
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n\n[tool.tpuemb]\nignore = ["TE105"\n')
    before = (project / "configs" / "model.pbtxt").read_bytes()
    result = invoke("check", *mode, "configs")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",  # a configuration error stops the run: no report
        f"tpuemb: error: {pyproject}:6:1: not valid TOML: Unclosed array\n",
    )
    assert (project / "configs" / "model.pbtxt").read_bytes() == before
    assert sorted(p.name for p in project.iterdir()) == ["configs", "pyproject.toml"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (".tpuemb.toml", "select = [\n", "2:1: not valid TOML: Invalid value"),
        (
            ".tpuemb.toml",
            '\ufeffignore = ["TE105"]\n',
            "1:1: not valid TOML: Invalid statement (the file starts with a byte-order mark: "
            "save it without one)",
        ),
        ("pyproject.toml", "tool = 3\n", "1:1: `tool`: must be a table"),
        ("pyproject.toml", "[tool]\ntpuemb = 3\n", "2:1: `tool.tpuemb`: must be a table"),
        (".tpuemb.toml", 'ignore = "TE105"\n', "1:1: `ignore`: must be a list of strings"),
    ],
)
def test_broken_configurations_are_errors(
    project: Path, name: str, text: str, message: str
) -> None:
    config = project / name
    config.write_text(text, encoding="utf-8")
    result = invoke("check", "configs")
    assert (result.exit_code, result.stderr) == (2, f"tpuemb: error: {config}:{message}\n")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        # A wrong type for a known key: at the key, in each place settings can be written.
        (
            "pyproject.toml",
            '[project]\nname = "x"  # [tool.tpuemb]\n\n[tool.tpuemb]\nselect = "TE001"\n',
            "5:1: `select`: must be a list of strings",
        ),
        (
            ".tpuemb.toml",
            "# ours\n\n  fail-level = 3\n",
            "3:3: `fail-level`: unknown severity '3' (expected one of: info, warning, error)",
        ),
        (".tpuemb.toml", 'jobs = "x"\n', "1:1: `jobs`: unknown key"),
        (
            "pyproject.toml",
            'tool.tpuemb.require-reason = "yes"\n',
            "1:13: `require-reason`: must be true or false",
        ),
        (
            "pyproject.toml",
            '[tool]\ntpuemb = { ignore = ["TE105"], exclude = "x" }\n',
            "2:32: `exclude`: must be a list of strings",
        ),
        (
            ".tpuemb.toml",
            '[severity]\nTE105 = "info"\n"TE4" = "loud"\n',
            "3:1: `severity.TE4`: unknown severity 'loud' (expected one of: info, warning, error)",
        ),
        # A bad entry in [[suppress]]: at its key, or at its header when a key is missing; the
        # text between is skipped as TOML reads it (a header inside a multi-line string is none).
        (
            "pyproject.toml",
            '[[tool.tpuemb.suppress]]\nfile = "a.json"\nrules = ["TE105"]\nreason = "r"\n\n'
            '[[tool.tpuemb.suppress]]\nfile = """a\n[[tool.tpuemb.suppress]]\n"""\n'
            'rules = "TE105"\nreason = "r"\n',
            "10:1: `suppress[1].rules`: must be a list of strings",
        ),
        (
            ".tpuemb.toml",
            '[[suppress]]\nfile = "a.json"\nrules = ["TE105"]\nreason = "r"\n'
            '[[suppress]]\nfile = "b.json"\nreason = "r"\n',
            "5:3: `suppress[1]`: `rules` is required",
        ),
        (
            ".tpuemb.toml",
            'suppress = [\n  { file = "a.json", rules = ["TE105"], reason = "r" },\n'
            '  { file = "b.json", field = 3, rules = ["TE105"], reason = "r" },\n]\n',
            "3:22: `suppress[1].field`: must be a string",
        ),
        (
            ".tpuemb.toml",
            "[per-file-ignores]\n'configs/a.b/*.json' = ['TE105']\n\"x.json\" = 'TE105'\n",
            "3:1: `per-file-ignores.x.json`: must be a list of strings",
        ),
    ],
)
def test_a_wrong_value_is_an_error_at_its_key(
    project: Path, name: str, text: str, message: str
) -> None:
    config = project / name
    config.write_text(text, encoding="utf-8")
    result = invoke("check", "configs")
    if message.endswith("unknown key"):  # and the ones it could be
        message += " (known: exclude, extend-select, fail-level, ignore, keras-backend, "
        message += "per-file-ignores, require-reason, select, severity, stats, stats-headroom, "
        message += "suppress, tpu)"
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"tpuemb: error: {config}:{message}\n",
    )


def test_the_key_locator_is_read_only_for_an_error(project: Path) -> None:
    # tomllib gives no places; the walk that finds them (and tomlkit, which the baseline writes
    # with) are not imported by a check whose configuration is fine.
    import subprocess
    import sys

    config = project / ".tpuemb.toml"
    code = (
        "import sys\n"
        "from tpuemb_cli.cli.main import main\n"
        "sys.argv = ['tpuemb', 'check', '--format', 'concise', 'configs']\n"
        "try:\n    main(prog_name='tpuemb')\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m in ('tomlkit', "
        "'tpuemb_cli.engine.toml_places')), file=sys.stderr)"
    )
    loaded = {}
    for text in ('ignore = ["TE406"]\n', 'ignore = "TE406"\n'):
        config.write_text(text)
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        loaded[text] = result.stderr.splitlines()[-1]
    assert loaded == {
        'ignore = ["TE406"]\n': "[]",
        'ignore = "TE406"\n': "['tpuemb_cli.engine.toml_places']",
    }
