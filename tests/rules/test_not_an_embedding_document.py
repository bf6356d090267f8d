"""TE009 not-an-embedding-document: a named file that is something else gets one finding; a
walked one is skipped."""

from pathlib import Path

from click.testing import CliRunner

from tests.helpers import CLEAN
from tpuemb_cli.cli import main
from tpuemb_cli.load import Skipped, load_input

COMPOSE = b"version: '3'\nservices:\n  app: {image: 'app:1'}\n"


def test_a_named_file_gets_one_finding(tmp_path: Path) -> None:
    path = tmp_path / "docker-compose.yml"
    path.write_bytes(COMPOSE)
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(path)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"{path}: TE009 [error] not a TPU embedding document: its top-level fields are "
        "`version`, `services`"
    )
    assert "TE002" not in result.stdout and "TE724" not in result.stdout


def test_a_walked_file_is_skipped_and_listed_with_show_files(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_bytes(COMPOSE)
    (tmp_path / "model.pbtxt").write_text(CLEAN)
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--format", "concise", str(tmp_path)])
    assert result.exit_code == 0
    assert result.stdout == "All checks passed (1 file checked).\n"
    shown = runner.invoke(main, ["check", "--show-files", str(tmp_path)])
    assert shown.exit_code == 0
    assert shown.stdout == (
        f"{tmp_path / 'docker-compose.yml'}: skipped: its top-level fields are `version`, "
        "`services`\n"
        f"{tmp_path / 'model.pbtxt'}: checked\n"
    )


def test_binary_says_which_types_were_tried(tmp_path: Path) -> None:
    path = tmp_path / "data.pb"
    path.write_bytes(b"\xff\xfe\x00\x01garbage")
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(path)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"{path}: TE009 [error] not a TPU embedding document: it parses as no "
        "TPUEmbeddingConfiguration, GraphDef, OptimizationParameters, SparseCoreTableLayouts or "
        "EmbeddingSpecProto without unknown fields"
    )
    # A config with no table: it parses, but is not one.
    document = load_input(b"\x10\x02", "mode_only.pb")
    assert not isinstance(document, Skipped)
    assert [p.message for p in document.problems] == [
        "not a TPU embedding document: it parses as TPUEmbeddingConfiguration but has no "
        "`table_descriptor`"
    ]


def test_type_says_what_it_is() -> None:
    document = load_input(COMPOSE, "docker-compose.yml", "EmbeddingSpec")
    assert not isinstance(document, Skipped)
    assert {p.rule for p in document.problems} == {"unknown-field"}


def test_near_misses() -> None:
    assert isinstance(load_input(COMPOSE, "c.yml", walked=True), Skipped)
    document = load_input(CLEAN.encode(), "c.pbtxt", walked=True)
    assert not isinstance(document, Skipped) and list(document.problems) == []
    # An empty file named on the command line is one finding (issue 38: it was an empty config,
    # four findings of a config without fields).
    empty = load_input(b"", "empty.pbtxt")
    assert not isinstance(empty, Skipped) and empty.message is None
    assert [(p.rule, p.message) for p in empty.problems] == [
        (
            "not-an-embedding-document",
            "not a TPU embedding document: it has no fields (an empty or emptied file?)",
        )
    ]
