"""Suppressions are indexed (entries by file, rule and field; comments by line) so that a baseline
of thousands of entries costs no more than its size: these are the matching rules the indexes
must keep, each case with its whole result. The time is measured by bench/hostile.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

ZERO = CLEAN.replace("constant: 0.05 }", "constant: 0 }")  # TE105 on line 7
ZERO_JSON = (
    '{"tableDescriptor": [{"name": "t", "vocabularySize": 8, "dimension": 4,'
    ' "optimizationParameters": {"adagrad": {}, "learningRate": {"constant": 0},'
    ' "gradientAccumulationStatus": "ENABLED"}}], "mode": "TRAINING", "numHosts": 1,'
    ' "numTensorCores": 8, "featureDescriptor": [{"tableId": 0, "inputShape": [4]}]}'
)
RATE = "table_descriptor[0].optimization_parameters.learning_rate.constant"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def entry(file: str, field: str = "*", rules: str = '["TE105"]') -> str:
    return f'[[suppress]]\nfile = "{file}"\nfield = "{field}"\nrules = {rules}\nreason = "r"\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs" / "sub").mkdir(parents=True)
    for path in ("configs/a.json", "configs/sub/b.json", "c.json"):
        (tmp_path / path).write_text(ZERO_JSON)
    return tmp_path


def check(*args: str) -> tuple[int, str, str]:
    result = invoke("check", "--format", "concise", *args)
    return result.exit_code, result.stdout, result.stderr


def unused(number: int, file: str, field: str = "*", rules: str = "TE105") -> str:
    config = Path.cwd() / ".tpuemb.toml"
    return (
        f"{config}: TE902 [warning] the suppression of {rules} for `{file}` (field `{field}`) "
        f"suppresses nothing (at suppress[{number}])\n"
    )


def finding(file: str) -> str:
    return (
        f"{file}:1:132: TE105 [warning] the learning rate is 0, so this table's embeddings never "
        "change during training\n"
    )


def test_entries_by_name_path_folder_and_glob(project: Path) -> None:
    (project / ".tpuemb.toml").write_text(
        entry("a.json")  # a name without a slash: that name in any folder
        + entry("configs/sub", RATE)  # a folder: the files under it
        + entry("*.json", "table_descriptor[1].*")  # a glob that matches files, not this field
        + entry("configs/sub/b.json", RATE, '["zero-learning-rate"]')  # the same finding again
        + entry("configs/su")  # not a folder of b.json: a prefix of its name
        + entry("other.json")  # matches no linted file: not reported
    )
    assert check("configs", "c.json") == (
        0,
        finding("c.json")
        + unused(2, "*.json", "table_descriptor[1].*")
        + "Found 2 warnings in 2 files (3 files checked).\n",
        "",
    )


def test_an_entry_and_its_twin_are_both_used(project: Path) -> None:
    (project / ".tpuemb.toml").write_text(entry("c.json", RATE) + entry("c.json", RATE))
    assert check("c.json") == (0, "All checks passed (1 file checked).\n", "")


def test_comment_lines_in_a_row_all_apply_to_the_next_line_of_code(project: Path) -> None:
    (project / "a.pbtxt").write_text(
        ZERO.replace(
            "    learning_rate { constant: 0 }\n",
            "    # tpuemb: ignore[TE105] frozen\n"
            "\n"
            "    # tpuemb: ignore[zero-learning-rate] frozen, said twice\n"
            "    # tpuemb: ignore[TE403] not on this line # tpuemb: ignore[TE105] twice in one\n"
            "    learning_rate { constant: 0 }\n",
        )
    )
    assert check("a.pbtxt") == (
        0,
        "a.pbtxt:10:5: TE902 [*] [warning] this suppression of TE403 suppresses nothing\n"
        "Found 1 warning in 1 file (1 file checked).\n"
        "[*] 1 finding fixable with `--fix`.\n",
        "",
    )
    result = invoke("check", "--fix", "--format", "concise", "a.pbtxt")
    assert result.exit_code == 0, result.output
    assert (project / "a.pbtxt").read_text() == ZERO.replace(
        "    learning_rate { constant: 0 }\n",
        "    # tpuemb: ignore[TE105] frozen\n"
        "\n"
        "    # tpuemb: ignore[zero-learning-rate] frozen, said twice\n"
        # The unused directive goes with the spaces before it (not the line: the other stays).
        "# tpuemb: ignore[TE105] twice in one\n"
        "    learning_rate { constant: 0 }\n",
    )


def test_a_file_ignore_covers_every_finding_of_its_rule(project: Path) -> None:
    tables = ZERO[: ZERO.index("mode:")]
    (project / "a.pbtxt").write_text(
        "# tpuemb: file-ignore[TE105] all frozen\n"
        "# tpuemb: file-ignore[unused-table] kept for the next version\n"
        "# tpuemb: file-ignore[TE403] no table without a size\n"
        + tables.replace('"video"', '"v"')
        + tables.replace('"video"', '"w"')
        + ZERO
    )
    # Three TE105 and two TE406 findings, each kind covered by one directive.
    assert check("a.pbtxt") == (
        0,
        "a.pbtxt:3:1: TE902 [*] [warning] this suppression of TE403 suppresses nothing\n"
        "Found 1 warning in 1 file (1 file checked).\n"
        "[*] 1 finding fixable with `--fix`.\n",
        "",
    )


def test_wildcard_fields_by_their_literal_ends(project: Path) -> None:
    tables = ZERO[: ZERO.index("mode:")]
    # TE105 on both tables, TE406 on the first.
    (project / "a.pbtxt").write_text(tables.replace('"video"', '"v"') + ZERO)
    rate = "optimization_parameters.learning_rate.constant"
    (project / ".tpuemb.toml").write_text(
        entry("a.pbtxt", f"table_descriptor[*].{rate}")  # both findings
        + entry("a.pbtxt", f"table_descriptor[1]*{rate}")  # the second: ends around one `*`
        + entry("a.pbtxt", "**")  # any field, as `*`
        + entry("*.pbtxt", f"*[0].{rate}")  # a glob, and a pattern with no literal prefix
        + entry("*.pbtxt", f"*[0].{rate}")  # the same pattern twice: both used
        + entry("a.pbtxt", f"table_descriptor[*]*[*].{rate}")  # the ends fit; the middle not
        + entry("a.pbtxt", f"table_descriptor[*].{rate}x")  # a suffix no field has
        + entry("a.pbtxt", f"table_descriptor[0].{rate}*")  # `*` may match nothing
        + entry("a.pbtxt", f"t*{rate}", '["TE406"]')  # another rule's finding, not this field
        + entry("a.pbtxt", "table_descriptor[*]", '["TE406"]')
    )
    assert check("a.pbtxt") == (
        0,
        unused(5, "a.pbtxt", f"table_descriptor[*]*[*].{rate}")
        + unused(6, "a.pbtxt", f"table_descriptor[*].{rate}x")
        + unused(8, "a.pbtxt", f"t*{rate}", "TE406")
        + "Found 3 warnings in 1 file (1 file checked).\n",
        "",
    )


def test_wildcard_entries_are_matched_once_per_shape_not_per_finding(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 300 findings under 300 entries whose fields are `*` or a pattern: a scan of every entry's
    # pattern for every finding was 90,000 matches. Counted, not timed (bench/hostile.py times).
    from tpuemb_cli.engine import suppressions
    from tpuemb_cli.engine.selectors import field_pattern, glob_matches

    tables = ZERO[: ZERO.index("mode:")]
    text = "".join(tables.replace('"video"', f'"t{index}"') for index in range(299)) + ZERO
    (project / "a.pbtxt").write_text(text)
    rate = "optimization_parameters.learning_rate.constant"
    (project / ".tpuemb.toml").write_text(
        "".join(
            entry(
                "*.pbtxt" if index % 3 else "a.pbtxt",  # a glob: tried once, not per entry
                f"table_descriptor[{index}]*{rate}" if index % 2 else "*",
            )
            for index in range(300)
        )
        + entry("a.pbtxt", "*", '["TE406"]')  # the 299 tables no feature uses
    )
    matched, globbed = [], []
    pattern, glob = field_pattern, glob_matches

    def counting(field: str) -> object:
        matched.append(field)
        return pattern(field)

    def counting_globs(*args: Any) -> bool:
        globbed.append(args[0])
        return glob(*args)

    monkeypatch.setattr(suppressions, "field_pattern", counting)
    monkeypatch.setattr(suppressions, "glob_matches", counting_globs)
    assert check("a.pbtxt") == (0, "All checks passed (1 file checked).\n", "")
    assert len(matched) == 150  # each pattern tried once: by the one field with its ends
    assert globbed == ["*.pbtxt"]
