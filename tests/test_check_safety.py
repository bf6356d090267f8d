"""`check` never loses an edit, lints what it is named, and says one thing once (issue 22).

Each test here failed before its fix: a fix written over an edit saved during the run; named
streams and files without an extension skipped as "All checks passed"; a JSON config with a
5,000-digit number skipped by discovery; `--add-suppressions` writing a configuration beside
each file; a configuration error said once per file; findings that only follow from a field
that did not load; "permission denied" for a folder that does not exist.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import fixing, main
from tpuemb_cli.fix.apply import fix_document

from .helpers import CLEAN, SPEC

EXAMPLES = Path(__file__).parent.parent / "examples"
MISTAKES = (EXAMPLES / "mistakes" / "common_mistakes.pbtxt").read_text()
# A clean config with one safe fix to make: a no-op flag (TE305).
FIXABLE = CLEAN.replace(
    "    gradient_accumulation_status: ENABLED\n",
    "    gradient_accumulation_status: ENABLED\n"
    "    multiply_weight_decay_factor_by_learning_rate: true\n",
)


def invoke(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


# -- 1: a fix is written only over the file that was read --------------------------------------
def test_an_edit_saved_during_a_fix_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "model.pbtxt"
    config.write_text(FIXABLE)
    edited = FIXABLE + "# saved by the user while tpuemb ran\n"
    real = fix_document

    def fix_while_the_user_saves(*args: object, **kwargs: object) -> object:
        fixed = real(*args, **kwargs)  # type: ignore[arg-type]
        config.write_text(edited)  # the editor saves between the read and the write
        return fixed

    monkeypatch.setattr("tpuemb_cli.cli.fixing.fix_document", fix_while_the_user_saves)
    result = invoke("check", "--fix", "--format", "concise", str(config))
    assert config.read_text() == edited
    assert result.exit_code == 1
    assert result.stderr == (
        f"tpuemb: {config}: not fixed: the file changed after tpuemb read it; run tpuemb again\n"
    )
    assert not list(tmp_path.glob(".*tpuemb-tmp"))


def test_same_size_and_time_but_other_content_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An edit that keeps the size, with the modification time put back: the content decides.
    config = tmp_path / "model.pbtxt"
    config.write_text(FIXABLE)
    before = config.stat()
    edited = FIXABLE.replace('name: "video"', 'name: "audio"')
    real = fix_document

    def sneaky(*args: object, **kwargs: object) -> object:
        fixed = real(*args, **kwargs)  # type: ignore[arg-type]
        config.write_text(edited)
        os.utime(config, ns=(before.st_atime_ns, before.st_mtime_ns))
        return fixed

    monkeypatch.setattr("tpuemb_cli.cli.fixing.fix_document", sneaky)
    result = invoke("check", "--fix", str(config))
    assert (result.exit_code, config.read_text()) == (1, edited)


def test_an_unchanged_file_is_fixed(tmp_path: Path) -> None:
    config = tmp_path / "model.pbtxt"
    config.write_text(FIXABLE)
    result = invoke("check", "--fix", "--format", "concise", str(config))
    assert (result.exit_code, config.read_text()) == (0, CLEAN)
    assert result.stdout == "Found 1 finding (1 fixed, 0 remaining); 1 file checked.\n"


# -- 2: named inputs are read and judged by their content ---------------------------------------
def _cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> tuple[int, str, str]:
    """The real command in a process: /dev/stdin and /dev/fd are the process's own."""
    done = subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "TPUEMB_FORMAT": "concise"},
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.mark.slow
def test_dev_stdin_a_process_substitution_and_a_file_without_extension_are_linted(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "bad.pbtxt"
    bad.write_text(MISTAKES)
    (tmp_path / "noext_file").write_text(MISTAKES)
    for argument, stdin in (("/dev/stdin", MISTAKES.encode()), ("noext_file", None)):
        code, out, _ = _cli("check", argument, stdin=stdin, cwd=tmp_path)
        assert code == 1, argument
        assert f"{argument}:32:42: TE407 [error]" in out
        assert out.splitlines()[-2] == "Found 5 errors, 1 warning in 1 file (1 file checked)."
    # <(cat bad.pbtxt): a pipe, as the shell names it
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m tpuemb_cli check <(cat bad.pbtxt)'],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "TPUEMB_FORMAT": "concise"},
        check=False,
    )
    assert done.returncode == 1
    assert b"TE407 [error]" in done.stdout


def test_fix_of_dev_stdin_reads_it_and_writes_nothing(tmp_path: Path) -> None:
    # The shell's `< file` makes /dev/stdin a link to the file: it is still not written.
    bad = tmp_path / "bad.pbtxt"
    bad.write_text(MISTAKES)
    with bad.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "tpuemb_cli", "check", "--fix", "/dev/stdin"],
            stdin=stdin,
            capture_output=True,
            env={**os.environ, "TPUEMB_FORMAT": "concise"},
            check=False,
        )
    assert done.returncode == 1
    assert bad.read_text() == MISTAKES
    assert done.stderr.decode() == (
        "tpuemb: /dev/stdin: fixes cannot be written to it: it is read as a stream (a pipe, a "
        "device, /dev/stdin); use --diff to see the fixes\n"
    )


def test_a_named_file_without_extension_that_is_no_document_is_te009(tmp_path: Path) -> None:
    (tmp_path / "LICENSE").write_text("Apache License\nVersion 2.0\n")
    result = invoke("check", "--format", "concise", str(tmp_path / "LICENSE"))
    assert result.exit_code == 1
    assert "TE009 [error] not a TPU embedding document" in result.stdout


def test_files_of_other_languages_stay_skipped_and_a_run_of_nothing_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("NOTES.md").write_text("# notes\n")
    Path("gen.py").write_text("print(1)\n")
    result = invoke("check", "--format", "concise", "NOTES.md", "gen.py")
    assert result.exit_code == 0
    assert result.stdout == "No files checked (2 inputs skipped).\n"
    assert result.stderr == (
        "tpuemb: NOTES.md: skipped: tpuemb reads no .md files (pass --type if it is a TPU "
        "embedding one)\n"
        "tpuemb: gen.py: skipped: tpuemb reads no .py files (pass --type if it is a TPU "
        "embedding one)\n"
    )
    assert "All checks passed" not in result.output


def test_a_walk_that_finds_no_document_does_not_pass(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    result = invoke("check", "--format", "concise", str(tmp_path))
    assert (result.exit_code, result.stdout) == (0, "No files checked (1 input skipped).\n")
    assert "package.json: skipped: its top-level fields are" in result.stderr


# -- 3: discovery judges JSON by its keys, whatever its numbers ---------------------------------
def test_a_json_config_with_a_huge_number_is_found_by_discovery(tmp_path: Path) -> None:
    big = '{"numHosts": ' + "9" * 5000 + ', "mode": "TRAINING"}\n'
    (tmp_path / "big.json").write_text(big)
    result = invoke("check", "--show-files", str(tmp_path))
    assert result.stdout == f"{tmp_path / 'big.json'}: checked\n"
    linted = invoke("check", "--format", "concise", str(tmp_path))
    assert linted.exit_code == 1
    assert "TE005 [error] the number `99999999999999999999...` has 5,000 digits" in linted.stdout


# -- 4: --add-suppressions writes one configuration, at the project's root ----------------------
def test_add_suppressions_writes_one_configuration_at_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    for folder in ("specs/a", "specs/b", "model/1"):
        (tmp_path / folder).mkdir(parents=True)
    bad_spec = SPEC.replace("vocabulary_size: 1000", "vocabulary_size: 0")
    Path("specs/a/one.yaml").write_text(bad_spec)
    Path("specs/b/two.yaml").write_text(bad_spec)
    Path("model/1/saved_model.pb").write_bytes(b"")
    Path("model/1/config.json").write_text('{"mode": "TRAINING", "numHosts": 1}\n')
    result = invoke("check", "--add-suppressions", "specs", "model")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob(".tpuemb.toml")) == [
        ".tpuemb.toml"
    ]
    written = Path(".tpuemb.toml").read_text()
    for file in ("specs/a/one.yaml", "specs/b/two.yaml", "model/1/config.json"):
        assert f'file = "{file}"' in written
    again = invoke("check", "--format", "concise", "specs", "model")
    assert again.exit_code == 0, (result.output, again.output)


def test_project_roots_outside_git_one_per_run_never_a_saved_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved = tmp_path / "export" / "1"
    (saved / "variables").mkdir(parents=True)
    (saved / "saved_model.pb").write_bytes(b"")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the files are outside the working directory and git
    deep = [tmp_path / "proj" / "a" / "x.json", tmp_path / "proj" / "b" / "c" / "y.yaml"]
    assert set(fixing.project_roots(deep).values()) == {tmp_path / "proj"}
    inside = [saved / "config.json", saved / "variables" / "x.pb"]
    assert set(fixing.project_roots(inside).values()) == {tmp_path / "export"}
    monkeypatch.chdir(saved)  # a SavedModel's folder as the working directory
    assert set(fixing.project_roots(inside).values()) == {tmp_path / "export"}


def test_add_suppressions_from_outside_writes_one_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad_spec = SPEC.replace("vocabulary_size: 1000", "vocabulary_size: 0")
    for folder in ("proj/configs", "proj/configs/deep"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "s.yaml").write_text(bad_spec)
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    invoke("check", "--add-suppressions", "../proj")
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob(".tpuemb.toml"))
    assert written == ["proj/configs/.tpuemb.toml"]
    assert invoke("check", "--format", "concise", "../proj").exit_code == 0


def test_a_configuration_edited_during_add_suppressions_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tpuemb_cli.engine import baseline

    monkeypatch.chdir(tmp_path)
    Path(".tpuemb.toml").write_text("# ours\n")
    Path("s.yaml").write_text(SPEC.replace("vocabulary_size: 1000", "vocabulary_size: 0"))
    real = baseline.with_entries

    def slow_edit(*args: object, **kwargs: object) -> str:
        text = real(*args, **kwargs)  # type: ignore[arg-type]
        Path(".tpuemb.toml").write_text('# ours\nignore = ["TE105"]  # saved meanwhile\n')
        return text

    monkeypatch.setattr(baseline, "with_entries", slow_edit)
    result = invoke("check", "--add-suppressions", "s.yaml")
    assert Path(".tpuemb.toml").read_text() == '# ours\nignore = ["TE105"]  # saved meanwhile\n'
    assert result.exit_code == 1
    assert "suppressions not added: the file changed after tpuemb read it" in result.stderr


def test_a_file_swapped_for_a_fifo_or_device_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "model.pbtxt"
    config.write_text(FIXABLE)
    real = fix_document

    def swap(*args: object, **kwargs: object) -> object:
        fixed = real(*args, **kwargs)  # type: ignore[arg-type]
        config.unlink()
        os.mkfifo(config)  # no reader: writing into it would block forever
        return fixed

    monkeypatch.setattr("tpuemb_cli.cli.fixing.fix_document", swap)
    result = invoke("check", "--fix", str(config))
    assert result.exit_code == 1
    assert "not fixed: the file changed after tpuemb read it" in result.stderr


def test_unsafe_fixes_alone_writes_nothing_and_marks_them(tmp_path: Path) -> None:
    config = tmp_path / "m.pbtxt"
    config.write_text(MISTAKES)
    result = invoke("check", "--format", "concise", "--unsafe-fixes", str(config))
    assert config.read_text() == MISTAKES
    assert result.stdout.splitlines()[-1] == "[*] 3 findings fixable with `--fix`."
    assert f"{config}:10:5: TE301 [*] [error]" in result.stdout


def test_diff_with_exit_zero_exits_0(tmp_path: Path) -> None:
    config = tmp_path / "m.pbtxt"
    config.write_text(MISTAKES)
    assert invoke("check", "--diff", str(config)).exit_code == 1
    assert invoke("check", "--diff", "--exit-zero", str(config)).exit_code == 0


def test_documents_only_reads_a_named_pipe(tmp_path: Path) -> None:
    (tmp_path / "m.pbtxt").write_text(MISTAKES)
    command = f'"{sys.executable}" -m tpuemb_cli check --documents-only <(cat m.pbtxt)'
    done = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "TPUEMB_FORMAT": "concise"},
        check=False,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "TE407 [error]" in done.stdout


# -- 6: a broken configuration is one error, once -----------------------------------------------
def test_a_configuration_error_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("pyproject.toml").write_text('[tool.tpuemb]\nselectt = ["TE1"]\n')
    Path("cfg").mkdir()
    for index in range(15):
        Path(f"cfg/c{index}.pbtxt").write_text(CLEAN)
    result = invoke("check", "cfg")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"tpuemb: error: {tmp_path / 'pyproject.toml'}:2:1: `selectt`: unknown key; did you "
        "mean `select`?\n"
    )


# -- 7: one typo, one finding -------------------------------------------------------------------
JSON_CONFIG = (
    '{"tableDescriptor": [{"name": "a", "vocabularySize": "10", "dimension": 4,'
    ' "optimizationParameters": {"learningRate": {"constant": 0.1}, "adagrad": {}}}],'
    ' "featureDescriptor": [{"name": "f", "tableId": 0, "inputShape": [8]}],'
    ' "mode": "TRAINING", "numHosts": 1, "numTensorCores": 8}\n'
)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("clean.json", JSON_CONFIG, []),
        ("typo.json", JSON_CONFIG.replace("learningRate", "learningRte"), ["TE002"]),
        ("value.json", JSON_CONFIG.replace('"10"', '"lots"'), ["TE007"]),
        ("enum.json", JSON_CONFIG.replace('"TRAINING"', '"TRAIN"'), ["TE004"]),
        ("clean.yaml", SPEC, []),
        ("typo.yaml", SPEC.replace("vocabulary_size", "vocab_size"), ["TE002"]),
        (
            "schedules.yaml",
            SPEC.replace("learning_rate: {constant: 0.05}", "learning_rte: {schedule: s}")
            + "schedules:\n  - {name: s, tag: 0}\n  - {name: t, tag: 1}\n",
            ["TE002"],
        ),
        ("typo.pbtxt", CLEAN.replace("learning_rate {", "learning_rte {"), ["TE002"]),
        ("value.pbtxt", CLEAN.replace("vocabulary_size: 1000", "vocabulary_size: lots"), ["TE007"]),
        ("algorithm.pbtxt", CLEAN.replace("adagrad {}", "adagrd {}"), ["TE002"]),
        ("optimiser.yaml", SPEC.replace("optimizer:", "optimiser:"), ["TE002"]),
        ("algorithm.yaml", SPEC.replace("{adagrad: {}", "{adagrd: {}"), ["TE002"]),
        ("name.yaml", SPEC.replace("  - name: video", "  - nme: video"), ["TE002"]),
        (
            "schedulez.yaml",
            SPEC.replace("learning_rate: {constant: 0.05}", "learning_rate: {schedule: s}")
            + "schedulez:\n  - {name: s, tag: 0}\n",
            ["TE002"],
        ),
        (
            "digits.json",
            JSON_CONFIG.replace('"numHosts": 1', '"numHosts": ' + "9" * 5000),
            ["TE005"],
        ),
        ("rows.json", JSON_CONFIG.replace('"10"', "9" * 5000), ["TE005"]),
    ],
)
def test_findings_that_follow_from_a_field_that_did_not_load_give_way(
    tmp_path: Path, name: str, text: str, expected: list[str]
) -> None:
    path = tmp_path / name
    path.write_text(text)
    result = invoke("check", "--format", "json", str(path))
    codes = [finding["rule"] for finding in json.loads(result.stdout)["findings"]]
    assert codes == expected


def test_a_finding_elsewhere_still_shows_beside_the_typo(tmp_path: Path) -> None:
    # The typo explains the missing learning rate, not an unrelated mistake in another table.
    text = CLEAN.replace("learning_rate {", "learning_rte {").replace(
        "num_tensor_cores: 8", "num_tensor_cores: 0"
    )
    path = tmp_path / "two.pbtxt"
    path.write_text(text)
    result = invoke("check", "--format", "concise", str(path))
    assert [line.split(": ")[1].split(" ")[0] for line in result.stdout.splitlines()[:-1]] == [
        "TE002",
        "TE502",
    ]


# -- 8: a folder that does not exist is not "permission denied" ---------------------------------
def test_writing_into_a_missing_folder_says_so(tmp_path: Path) -> None:
    config = tmp_path / "c.pbtxt"
    config.write_text(CLEAN)
    missing = tmp_path / "no" / "such" / "report.json"
    result = invoke("check", "--format", "json", "--output-file", str(missing), str(config))
    assert result.exit_code == 2
    assert result.stderr == (
        f"tpuemb: error: {missing}: cannot write the report: the folder {missing.parent} does "
        "not exist\n"
    )
    link = tmp_path / "dangling.json"
    link.symlink_to(tmp_path / "gone" / "r.json")
    result = invoke("check", "--format", "json", "--output-file", str(link), str(config))
    assert result.stderr == (
        f"tpuemb: error: {link}: cannot write the report: it is a symbolic link to "
        f"{tmp_path / 'gone' / 'r.json'}, whose folder does not exist\n"
    )
    converted = invoke("convert", str(config), "--to", "json", "-o", str(missing))
    assert converted.exit_code == 2
    assert converted.stderr == (
        f"tpuemb: error: {missing}: cannot write: the folder {missing.parent} does not exist\n"
    )


@pytest.mark.slow
def test_a_yaml_spec_without_a_name_is_read_as_yaml() -> None:
    # stdin, a pipe, a file with no extension: no name says YAML, the content does.
    spec = (EXAMPLES / "recommender.spec.yaml").read_bytes()
    for args in (["check", "-"], ["check", "--type", "EmbeddingSpec", "-"], ["compile", "-"]):
        code, out, err = _cli(*args, stdin=spec)
        assert (code, err) == (0, ""), (args, out, err)
    code, out, _ = _cli("check", "-", stdin=spec)
    assert out == "All checks passed (1 file checked).\n"
    # Text format that is also a YAML mapping stays text format.
    code, out, _ = _cli("check", "-", stdin=b"mode: TRAINING\n")
    assert "TE410 [error]" in out
