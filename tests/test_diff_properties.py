"""Every fixture diffed against itself, and against its own conversions to each encoding,
reports nothing (issue 24: `tpuemb diff X X` once reported a change on a config whose feature
names no table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpuemb_cli.load import Document, encodings, load_input
from tpuemb_cli.model.schema import DEFAULT_TYPE, kind_of
from tpuemb_cli.workspace import Version, Workspace, diff_versions

ROOT = Path(__file__).parent.parent
FIXTURES = sorted(
    path
    for folder in (
        ROOT / "examples",
        ROOT / "tests" / "data" / "tf-2.21",
        ROOT / "tests" / "data" / "jax",
    )
    for path in folder.rglob("*")
    if path.suffix in (".pbtxt", ".pb", ".json", ".yaml")
)


def _documents() -> list[tuple[Path, bytes]]:
    """The fixtures that hold a config, a spec or a stacked layout, with their bytes."""
    found = []
    for path in FIXTURES:
        data = path.read_bytes()
        document = load_input(data, str(path))
        if (
            isinstance(document, Document)
            and document.message is not None
            and kind_of(document.message) in ("config", "spec", "jax")
        ):
            found.append((path, data))
    return found


DOCUMENTS = _documents()


def test_the_fixtures_are_found() -> None:
    assert len(DOCUMENTS) >= 35


@pytest.mark.parametrize(("path", "data"), DOCUMENTS, ids=[str(p.name) for p, _ in DOCUMENTS])
@pytest.mark.slow
def test_a_fixture_against_itself_and_its_conversions_is_no_change(
    path: Path, data: bytes, tmp_path: Path
) -> None:
    workspace = Workspace(isolated=True, command="diff")
    itself = diff_versions(workspace, Version(data, str(path)), Version(data, str(path)), str(path))
    assert itself.skipped is None, itself
    if itself.error is not None:
        # A spec `compile` refuses is refused here too (its errors say why), never compared.
        assert itself.findings and not itself.compared, itself
        return
    assert (itself.compared, itself.findings) == (True, []), itself.findings
    document = load_input(data, str(path))
    assert isinstance(document, Document) and document.message is not None
    said = document.message_type
    for name, suffix in (("text", ".pbtxt"), ("json", ".json"), ("binary", ".pb")):
        converted = encodings.get(name).render(document.message)
        if name == "text" and said != DEFAULT_TYPE:
            converted = f"# proto-message: {said}\n".encode() + converted
        target = tmp_path / f"converted{suffix}"
        target.write_bytes(converted)
        # Binary says nothing of its type: the user says it (`diff --type`).
        message_type = said if name == "binary" else None
        new = Version(converted, str(target), message_type=message_type)
        diffed = diff_versions(workspace, Version(data, str(path)), new, str(target))
        assert (diffed.error, diffed.findings) == (None, []), (name, diffed)
