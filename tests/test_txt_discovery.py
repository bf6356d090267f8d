"""A `.txt` file is one of tpuemb's when its `# proto-message:` header names a type tpuemb reads:
a directory walk takes it then (and only then), and every command reads a named one, `check`
included -- as `convert`, `explain` and `diff` always did."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

DATA = Path(__file__).parent / "data" / "jax"
HEADER = "# proto-message: EmbeddingSpecProto\n"


def invoke(*arguments: str) -> Result:
    return CliRunner().invoke(main, list(arguments))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of a headed layout, the same layout without a header, notes and requirements."""
    layout = (DATA / "stacked.pbtxt").read_text()
    (tmp_path / "layout.txt").write_text(HEADER + layout)
    (tmp_path / "unheaded.txt").write_text(layout)
    (tmp_path / "notes.txt").write_text("# proto-message: is how a header starts\nnot a config\n")
    (tmp_path / "requirements.txt").write_text("numpy==2.0\n")
    (tmp_path / "other.txt").write_text("# proto-message: tensorflow.Example\nfeatures {}\n")
    return tmp_path


def test_a_walk_takes_a_txt_whose_header_names_a_type_tpuemb_reads(folder: Path) -> None:
    shown = invoke("check", "--show-files", str(folder))
    assert (shown.exit_code, shown.stdout) == (0, f"{folder / 'layout.txt'}: checked\n")
    result = invoke("check", "--format", "concise", str(folder))
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_a_walk_reads_the_header_of_a_txt_not_its_fields(folder: Path) -> None:
    # The layout without a header is left out, as a .txt of someone else's would be: only the
    # header says a .txt is ours.
    (folder / "layout.txt").unlink()
    result = invoke("check", str(folder))
    assert result.exit_code == 0
    assert result.stderr == (
        f"tpuemb: {folder}: skipped: no file tpuemb reads in this folder (.binpb .json .keras .pb "
        ".pbtxt .prototxt .textproto .txtpb .yaml .yml; .txt under a `# proto-message:` header)\n"
    )


def test_a_named_txt_is_read_by_check_as_by_the_other_commands(folder: Path) -> None:
    layout, unheaded = str(folder / "layout.txt"), str(folder / "unheaded.txt")
    # Judged by its content, like a named file without an extension: headed or not.
    result = invoke("check", "--format", "concise", layout, unheaded)
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "All checks passed (2 files checked).\n",
        "",
    )
    explained = invoke("explain", layout)
    assert explained.exit_code == 0
    assert explained.stdout.startswith(f"{layout} (JAX SparseCore stacks: 2 stacks")
    converted = invoke("convert", layout, "--to", "json")
    assert (converted.exit_code, converted.stdout.startswith('{\n  "stackedTableSpecs"')) == (
        0,
        True,
    )
    diffed = invoke("diff", layout, unheaded)
    assert diffed.exit_code == 0, diffed.output


def test_a_named_txt_that_is_no_document_is_te009_and_skipped_with_documents_only(
    folder: Path,
) -> None:
    notes = str(folder / "notes.txt")
    result = invoke("check", "--format", "concise", notes)
    assert result.exit_code == 1
    assert "TE009 [error] not a TPU embedding document" in result.stdout
    quiet = invoke("check", "--documents-only", notes)
    assert (quiet.exit_code, quiet.stdout) == (0, "No files checked (1 input skipped).\n")


def test_diff_against_a_revision_walks_the_folder_then_as_now(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The headed layout is paired with itself at HEAD (not "new since HEAD"); the other .txt
    # files are taken neither now nor then.
    if shutil.which("git") is None:
        pytest.fail("git is required")
    monkeypatch.chdir(folder)
    for command in (
        ["init", "-q"],
        ["config", "user.email", "ci@example.com"],
        ["config", "user.name", "CI"],
        ["add", "."],
        ["commit", "-qm", "first"],
    ):
        subprocess.run(["git", *command], cwd=folder, check=True, capture_output=True)
    result = invoke("diff", "--against", "HEAD", ".")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "No changes (1 file pair compared).\n",
        "",
    )


def test_a_headed_text_spec_without_a_known_extension_is_read_as_text(tmp_path: Path) -> None:
    """A `# proto-message:` header names the type, not the encoding: a text-format spec behind one
    (in a .txt, a file without extension, on stdin) is text, which compile, check --type and the
    others read alike; a YAML spec behind one is still YAML."""
    source = DATA / "compile" / "explicit.spec.textproto"
    body = "".join(
        line for line in source.read_text().splitlines(True) if "proto-message" not in line
    )
    headed = "# proto-message: tpuemb.spec.EmbeddingSpec\n" + body
    expected = invoke("compile", str(source), "--target", "jax")
    assert expected.exit_code == 0, expected.output
    for name in ("spec.txt", "spec"):
        path = tmp_path / name
        path.write_text(headed)
        result = invoke("compile", str(path), "--target", "jax")
        assert (result.exit_code, result.stdout) == (0, expected.stdout), result.output
        checked = invoke("check", "--type", "EmbeddingSpec", str(path))
        assert checked.exit_code == 0, checked.output
    piped = CliRunner().invoke(main, ["compile", "-", "--target", "jax"], input=headed)
    assert (piped.exit_code, piped.stdout) == (0, expected.stdout), piped.output
    yaml_spec = Path(__file__).parents[1] / "examples" / "recommender.spec.yaml"
    path = tmp_path / "yaml_spec"
    path.write_text("# proto-message: tpuemb.spec.EmbeddingSpec\n" + yaml_spec.read_text())
    assert invoke("compile", str(path)).stdout == invoke("compile", str(yaml_spec)).stdout
