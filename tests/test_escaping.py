"""Control characters in config strings never reach a terminal raw: human output (concise, full,
github, explain) shows them escaped; JSON keeps the exact string (JSON escapes it itself)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

# A newline (a forged output line), an ANSI colour sequence and a right-to-left override, as
# protobuf text format writes them in a string: escaped.
NAME = "a\\nb\\x1b[31m\\u202e"
TABLE = CLEAN[: CLEAN.index("mode:")].replace('"video"', f'"{NAME}"')
CONFIG = (
    TABLE
    + TABLE
    + "mode: TRAINING\nnum_hosts: 1\nnum_tensor_cores: 8\n"
    + 'feature_descriptor { name: "watched" table_id: 0 input_shape: 16 }\n'
    + 'feature_descriptor { name: "seen" table_id: 1 input_shape: 16 }\n'
)
RAW = "a\nb\x1b[31m\u202e"  # what the name is, once parsed
SHOWN = "a\\nb\\x1b[31m\\u202e"  # how human output writes it
MESSAGE = f'table 1 is named "{SHOWN}", like table 0; table names must be unique'


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.pbtxt").write_text(CONFIG)
    return "m.pbtxt"


def test_concise(config: str) -> None:
    result = invoke("check", "--format", "concise", config)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        f"m.pbtxt:12:3: TE402 [error] {MESSAGE}\nFound 1 error in 1 file (1 file checked).\n",
        "",
    )


def test_full(config: str) -> None:
    result = invoke("check", "--format", "full", config)
    # The excerpt is the source, where the name is written with escapes already.
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        f"TE402 [error] duplicate-table-name: {MESSAGE}\n"
        "  --> m.pbtxt:12:3\n"
        "     |\n"
        "  11 | table_descriptor {\n"
        f'  12 |   name: "{NAME}"\n'
        "     |   ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "  13 |   vocabulary_size: 1000\n"
        "     |\n"
        "  = field: table_descriptor[1].name\n"
        "  = help: rename one of the tables\n"
        "\n"
        "Found 1 error in 1 file (1 file checked).\n",
        "",
    )


def test_github(config: str) -> None:
    result = invoke("check", "--format", "github", config)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "::error file=m.pbtxt,line=12,col=3,endLine=12,endColumn=29,"
        f"title=TE402 duplicate-table-name::{MESSAGE} (table_descriptor[1].name)"
        "%0Ahelp: rename one of the tables\n",
        "",
    )


def test_json_keeps_the_exact_string(config: str) -> None:
    result = invoke("check", "--format", "json", config)
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout  # JSON escapes it: \u001b
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["message"] == MESSAGE.replace(SHOWN, RAW)


def test_explain(config: str) -> None:
    result = invoke("explain", config)
    rule = "-" * len(SHOWN)
    # Its errors first, escaped too (issue 38: a config with errors explains as read, exit 1).
    assert result.exit_code in (0, 1) and "\x1b" not in result.stderr
    assert result.stdout.splitlines()[2:6] == [
        f"{'table':<{len(SHOWN)}}  rows x dim  optimizer  learning rate  weight clip  "
        "gradient clip  weight decay  accumulation  packing      features",
        f"{rule}  ----------  ---------  -------------  -----------  -------------  "
        "------------  ------------  -----------  --------",
        f"{SHOWN}  1,000 x 16  adagrad    0.05           -            -              -"
        "             enabled       unspecified  watched",
        f"{SHOWN}  1,000 x 16  adagrad    0.05           -            -              -"
        "             enabled       unspecified  seen",
    ]


def test_json_input_and_other_control_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same name in a JSON config (where JSON writes it \n, \u001b), and a C1 control, DEL
    # and a bidi isolate in a feature name that another rule quotes.
    monkeypatch.chdir(tmp_path)
    config = {
        "tableDescriptor": [
            {
                "name": RAW,
                "vocabularySize": 8,
                "dimension": 4,
                "optimizationParameters": {
                    "adagrad": {},
                    "learningRate": {"constant": 0.1},
                    "gradientAccumulationStatus": "ENABLED",
                },
            }
        ],
        "mode": "TRAINING",
        "numHosts": 1,
        "numTensorCores": 8,
        "featureDescriptor": [{"name": "f\x85\x7f\u2066", "tableId": 1, "inputShape": [4]}],
    }
    (tmp_path / "m.json").write_text(json.dumps(config))
    result = invoke("check", "--format", "concise", "m.json")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        f'm.json:1:22: TE406 [error] no feature uses table 0 ("{SHOWN}") (no '
        "`feature_descriptor` has `table_id: 0`)\n"
        'm.json:1:323: TE407 [error] feature 0 ("f\\x85\\x7f\\u2066") has `table_id: 1`, but the '
        "config has 1 table (valid ids: 0 to 0); building the graph, TensorFlow does not check it "
        "and crashes or reads garbage, and configuring the TPU rejects it\n"
        "Found 2 errors in 1 file (1 file checked).\n",
        "",
    )


def test_errors_on_stderr_escape_names_and_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file name or a configuration value is written into an error message: a newline in it
    # forged a line of tpuemb's own, an escape sequence reached the terminal.
    monkeypatch.chdir(tmp_path)
    missing = invoke("check", "gone\ntpuemb: error: forged\x1b[31m.pbtxt")
    assert (missing.exit_code, missing.stderr) == (
        2,
        "tpuemb: error: gone\\ntpuemb: error: forged\\x1b[31m.pbtxt: no such file or directory\n",
    )
    folder = tmp_path / "odd\n\x1b[31m"
    folder.mkdir()
    (folder / "m.pbtxt").write_text(CLEAN)
    (folder / ".tpuemb.toml").write_text('ignore = ["TE105\\n\\u001b[0m"]\n')
    bad = invoke("check", "--format", "concise", str(folder))
    assert (bad.exit_code, bad.stderr) == (
        2,
        f"tpuemb: error: {tmp_path}/odd\\n\\x1b[31m/.tpuemb.toml:1:1: `ignore`: unknown rule "
        "'TE105\\n\\x1b[0m' (`tpuemb rules` lists them)\n",
    )
    (folder / ".tpuemb.toml").unlink()  # explain, too, refuses a broken configuration
    (folder / "broken.pbtxt").write_text("mode: {\n")
    explained = invoke("explain", str(folder / "broken.pbtxt"))
    assert (explained.exit_code, explained.stderr) == (
        1,
        f"tpuemb: error: {tmp_path}/odd\\n\\x1b[31m/broken.pbtxt: does not parse; run "
        "`tpuemb check` on it\n",
    )
