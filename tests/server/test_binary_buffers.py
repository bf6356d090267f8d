"""Binary files and archives open in the editor (issue 36, point 12): the editor's buffer is
their bytes decoded as text, mangled, and is never parsed -- a `.keras` read from it had a "Bad
magic number" (TE001) that `tpuemb check` does not give. They are left alone (no diagnostics;
`tpuemb check` reads the file): `.keras`, binary protobuf (`.pb`, `.binpb`, `saved_model.pb`),
a checkpoint's index and data files. A model folder's `config.json` is text, and linted from the
buffer as `check` lints the file. End to end: a real server driven over stdio as an editor
drives it (didOpen with the text an editor shows)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the `server` extra (pygls) is not installed")

from tests.server.raw_client import RawClient
from tests.server.test_hostile_buffers import check_findings, found, started, still_linting

DATA = Path(__file__).resolve().parent.parent / "data"
EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    with started(tmp_path) as client:
        yield client
        assert client.shutdown_and_exit() == 0


def shown(path: Path) -> str:
    """What an editor holds for a binary file: its bytes decoded, each bad one U+FFFD."""
    return path.read_bytes().decode("utf-8", errors="replace")


BINARY = [
    (DATA / "keras-core" / "mistakes.keras", "mistakes.keras"),
    (DATA / "keras-core" / "clean.keras", "model.keras"),
    (EXAMPLES / "ranking_model.pb", "ranking_model.pb"),
    (EXAMPLES / "ranking_model.pb", "ranking_model.binpb"),
    (EXAMPLES / "ranking_model.pb", "saved_model.pb"),
    # A checkpoint's files: no extension tpuemb reads, binary bytes (NULs, not UTF-8).
    (EXAMPLES / "ranking_model.pb", "ckpt-1.index"),
    (DATA / "keras-core" / "clean.keras", "ckpt-1.data-00000-of-00001"),
]


@pytest.mark.slow
def test_a_binary_file_open_in_the_editor_is_left_alone(client: RawClient, tmp_path: Path) -> None:
    # One server opens them all, one after another, as an editor's tabs (a server each cost a
    # second of the suite).
    for number, (source, name) in enumerate(BINARY):
        path = tmp_path / str(number) / name
        path.parent.mkdir()
        shutil.copyfile(source, path)
        client.open(path.as_uri(), shown(path), "plaintext")
        assert client.diagnostics(path.as_uri()) == [], name
    still_linting(client, tmp_path)


@pytest.mark.slow
def test_a_model_folders_config_json_is_linted_from_the_buffer(
    client: RawClient, tmp_path: Path
) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    path = folder / "config.json"
    text = (DATA / "keras-core" / "model" / "config.json").read_text()
    path.write_text(text)
    client.open(path.as_uri(), text, "json")
    expected = check_findings(path)
    assert expected and found(client.diagnostics(path.as_uri())) == expected
    # The buffer, not the file: an edit not saved yet changes what is found.
    edited = folder / "edited" / "config.json"
    edited.parent.mkdir()
    edited.write_text(text.replace('"clipnorm": 1.0', '"clipnorm": null', 1))
    assert check_findings(edited) != expected
    client.open(path.as_uri(), edited.read_text(), "json")
    assert found(client.diagnostics(path.as_uri())) == [
        (code, line, column, message.replace(str(edited), str(path)))
        for code, line, column, message in check_findings(edited)
    ]


@pytest.mark.slow
def test_a_file_check_skips_by_its_name_is_left_alone(client: RawClient, tmp_path: Path) -> None:
    # Issue 36 review: a `.h5` holding a spec's JSON (an editor opens it as JSON) was linted,
    # where `tpuemb check` skips it ("tpuemb reads no .h5 files"). The same text in a `.json`
    # is linted, and an untitled buffer (no name to go by) is judged by its content.
    text = (DATA / "jax" / "stacked.json").read_text().replace('"stackName"', '"stack_nam"', 1)
    for name, language in (("weights.h5", "json"), ("NOTES.md", "markdown")):
        path = tmp_path / name
        path.write_text(text)
        assert check_findings(path) == []
        client.open(path.as_uri(), text, language)
        assert client.diagnostics(path.as_uri()) == [], name
    path = tmp_path / "stacked.json"
    path.write_text(text)
    client.open(path.as_uri(), text, "json")
    assert found(client.diagnostics(path.as_uri())) == check_findings(path) != []
    still_linting(client, tmp_path)
