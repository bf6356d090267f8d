"""The language server's plain parts, without an editor: positions in the editor's units, minimal
edits, linting an open document the way `check` lints a file, and which fields completion offers
(the cursor's place in half-typed text, which hover and completion read, is load's:
tests/test_cursor.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CLEAN
from tpuemb_cli.model.edits import TextEdit
from tpuemb_cli.model.findings import Position
from tpuemb_cli.server.actions import minimal_edit
from tpuemb_cli.server.linting import Linter, path_of
from tpuemb_cli.server.positions import UTF8, UTF16, UTF32, TextLines
from tpuemb_cli.server.scheduler import DEFAULT_DELAY
from tpuemb_cli.server.schema_help import field_items, message_at, root


def test_the_pause_after_typing_is_what_the_readme_says() -> None:
    readme = (Path(__file__).parents[2] / "docs" / "editor.md").read_text()  # the README's page
    assert DEFAULT_DELAY == 0.25 and "after a pause in typing (0.25 s;" in readme


@pytest.mark.parametrize(
    ("encoding", "expected"), [(UTF16, (1, 8)), (UTF8, (1, 11)), (UTF32, (1, 7))]
)
def test_positions_count_the_editors_units(encoding: str, expected: tuple[int, int]) -> None:
    text = 'a: 1\nb: "\U0001f600é" c\n'
    lines = TextLines(text, encoding)
    offset = text.index(" c")
    assert lines.position(offset) == expected
    assert lines.offset(*expected) == offset


def test_a_byte_order_mark_and_crlf() -> None:
    text = "\ufeffmode: X\r\nnum_hosts: 0\r\n"
    lines = TextLines(text)
    # The loader's text has no mark: line 1, column 7 of it is after the mark in the editor.
    assert lines.range_of(Position(1, 7, 1, 8)) == ((0, 7), (0, 8))
    assert lines.range_of(Position(2, 12, 2, 99)) == ((1, 11), (1, 12))  # never past the line
    assert lines.offset(0, 99) == text.index("\r")


def test_minimal_edit() -> None:
    assert minimal_edit("abcdef", "abXYef") == TextEdit(2, 4, "XY")
    assert minimal_edit("aaa", "aaaa") == TextEdit(3, 3, "a")
    assert minimal_edit("same", "same") is None


def test_linting_finds_the_configuration_and_skips_what_is_not_a_document(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tpuemb]\nexclude = ["skip.pbtxt"]\n')
    linter = Linter()
    bad = CLEAN.replace("dimension: 16", "dimension: 0")
    linted = linter.lint((tmp_path / "a.pbtxt").as_uri(), bad)
    assert [f.rule for f in linted.findings] == ["TE403"]
    assert linted.engine is not None and linted.engine.settings.path == tmp_path / "pyproject.toml"
    excluded = linter.lint((tmp_path / "skip.pbtxt").as_uri(), bad)
    assert (excluded.findings, excluded.skipped) == ([], "excluded by the configuration")
    other = linter.lint((tmp_path / "package.json").as_uri(), '{"name": "web"}')
    assert other.findings == [] and other.skipped is not None and other.error is None
    binary = linter.lint((tmp_path / "m.pb").as_uri(), "\x00garbage")
    assert binary.skipped == "binary files are not linted from the editor"
    unsaved = linter.lint("untitled:Untitled-1", bad)
    assert [f.rule for f in unsaved.findings] == ["TE403"]


def test_path_of() -> None:
    assert path_of("file:///tmp/a%20b.pbtxt") == "/tmp/a b.pbtxt"
    assert path_of("file:///C:/x/y.pbtxt") == "C:/x/y.pbtxt"
    assert path_of("untitled:Untitled-1") is None


def test_completion_leaves_out_what_is_written_and_the_rest_of_a_chosen_oneof() -> None:
    config = root("TPUEmbeddingConfiguration")
    optimization = message_at(config, ("table_descriptor", "optimization_parameters"))
    assert config is not None and optimization is not None
    everything = [item.label for item in field_items(optimization)]
    assert "adam" in everything and "adagrad" in everything
    # an optimizer written: no other member of the oneof; a field written by its JSON name is
    # written, and the labels are JSON names when asked
    labels = [
        item.label
        for item in field_items(optimization, {"adagrad", "learningRate"}, json_names=True)
    ]
    assert "adam" not in labels and "adagrad" not in labels and "learningRate" not in labels
    assert labels[0] == "clippingLimits"
    # a repeated field again in text format (once per element), not in JSON and YAML
    again = [item.label for item in field_items(config, {"table_descriptor"})]
    assert "table_descriptor" in again
    once = [item.label for item in field_items(config, {"table_descriptor"}, repeats=False)]
    assert "table_descriptor" not in once and "mode" in once


def test_the_server_judges_limits_against_the_settings_statistics(tmp_path: Path) -> None:
    from tests.jax_specs import STACKED
    from tests.measured_stats import stats

    stats(tmp_path / "measured", video_user=(300, 10), ads=(200, 10))
    (tmp_path / "pyproject.toml").write_text('[tool.tpuemb]\nstats = "measured"\n')
    linted = Linter().lint((tmp_path / "stacked.pbtxt").as_uri(), STACKED)
    assert [f.rule for f in linted.findings if f.rule.startswith("TE61")] == ["TE611"]
    (tmp_path / "pyproject.toml").write_text('[tool.tpuemb]\nstats = "missing"\n')
    broken = Linter().lint((tmp_path / "stacked.pbtxt").as_uri(), STACKED)
    assert broken.findings == [] and broken.error is not None and "`stats`" in broken.error


def test_statistics_files_are_watched_as_the_settings_are() -> None:
    from tpuemb_cli.server.linting import is_config_file
    from tpuemb_cli.server.notifications.initialized import CONFIG_GLOBS

    assert is_config_file("file:///p/fdo/fdo_stats_0_1795946276211161185.npz")
    assert is_config_file("file:///p/fdo/fdo_stats_3_1.csv")
    assert not is_config_file("file:///p/fdo/notes.csv")
    assert {"**/fdo_stats_*.npz", "**/fdo_stats_*.csv", "**/pyproject.toml"} <= set(CONFIG_GLOBS)
