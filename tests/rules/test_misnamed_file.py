"""TE008 misnamed-file: content in another encoding than the name says, read as what it is."""

from pathlib import Path

from click.testing import CliRunner

from tests.helpers import CLEAN, CONFIGS, OPTIMS
from tpuemb_cli.cli import main
from tpuemb_cli.load import load_input


def test_text_in_a_pb_file_is_read_as_text_with_a_note() -> None:
    document = load_input(CLEAN.encode(), "model.pb")
    assert document.format == "text" and document.message is not None  # type: ignore[union-attr]
    (note,) = document.problems  # type: ignore[union-attr]
    assert (note.rule, note.message) == (
        "misnamed-file",
        "this file holds text format, not binary; read as text",
    )
    assert note.fix == (
        "rename it to say what it holds (tpuemb reads text from .pbtxt .textproto .txtpb .prototxt)"
    )


def test_binary_in_a_pbtxt_file_is_read_as_binary_with_a_note() -> None:
    data = (CONFIGS / "multi_table_mixed_optimizers.pb").read_bytes()
    document = load_input(data, "model.pbtxt")
    assert document.format == "binary"  # type: ignore[union-attr]
    assert [p.rule for p in document.problems] == ["misnamed-file"]  # type: ignore[union-attr]


def test_with_type_text_in_a_pb_file_is_read_as_text_with_the_same_note(tmp_path: Path) -> None:
    path = tmp_path / "txt.pb"
    path.write_text('table_descriptor { name: "t" }\n')
    result = CliRunner().invoke(
        main,
        ["check", "--format", "concise", "--type", "TPUEmbeddingConfiguration", str(path)],
    )
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:3] == [
        f"{path}:1:1: TE008 [info] this file holds text format, not binary; read as text",
        f'{path}:1:1: TE403 [error] table 0 ("t") has `dimension` 0 (or not set); it needs at '
        "least 1 column",
        f'{path}:1:1: TE403 [error] table 0 ("t") has `vocabulary_size` 0 (or not set); it needs '
        "at least 1 row",
    ]
    assert "Wire format was corrupt" not in result.stdout
    # The type given is the type read, as text: an optimizer in a .pb.
    document = load_input(b"adagrad {}\n", "opt.pb", "OptimizationParameters")
    assert (document.format, document.message_type) == ("text", "OptimizationParameters")  # type: ignore[union-attr]
    assert [p.rule for p in document.problems] == ["misnamed-file"]  # type: ignore[union-attr]


def test_with_type_binary_in_a_pbtxt_file_is_read_as_binary_with_the_same_note() -> None:
    data = (OPTIMS / "adam_default.pb").read_bytes()
    document = load_input(data, "adam.pbtxt", "OptimizationParameters")
    assert document.format == "binary" and document.message is not None  # type: ignore[union-attr]
    (note,) = document.problems  # type: ignore[union-attr]
    assert (note.message, note.fix) == (
        "this file holds binary format, not text; read as binary",
        "rename it to say what it holds (tpuemb reads binary from .pb .binpb)",
    )


def test_near_misses(tmp_path: Path) -> None:
    # A real binary config and a real text config: no note.
    data = (CONFIGS / "multi_table_mixed_optimizers.pb").read_bytes()
    assert list(load_input(data, "model.pb").problems) == []  # type: ignore[union-attr]
    assert list(load_input(CLEAN.encode(), "model.pbtxt").problems) == []  # type: ignore[union-attr]
    # With --type too; and bytes that are not UTF-8 nor that type stay text, and say why.
    typed = load_input(data, "model.pb", "TPUEmbeddingConfiguration")
    assert list(typed.problems) == []  # type: ignore[union-attr]
    typed = load_input(CLEAN.encode(), "model.pbtxt", "TPUEmbeddingConfiguration")
    assert list(typed.problems) == []  # type: ignore[union-attr]
    broken = load_input(b"mode: \xff\n", "model.pbtxt", "TPUEmbeddingConfiguration")
    assert [(p.rule, p.message) for p in broken.problems] == [  # type: ignore[union-attr]
        ("invalid-syntax", "the file is not UTF-8 text: byte 0xff at offset 6")
    ]
