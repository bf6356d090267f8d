"""The bad-input matrix: each row a clear message naming the file and exit 2, or findings -- never
a traceback, and in bounded time."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN, CONFIGS


def check(*args: str, stdin: bytes | None = None) -> Result:
    result = CliRunner().invoke(main, ["check", "--format", "json", *args], input=stdin)
    assert "Traceback" not in result.output + result.stderr
    return result


def rules(result: Result) -> list[str]:
    return [f["rule"] for f in json.loads(result.stdout)["findings"]]


def test_missing_file() -> None:
    result = check("no/such.pbtxt")
    assert result.exit_code == 2
    assert result.stderr == "tpuemb: error: no/such.pbtxt: no such file or directory\n"


def test_directory_without_configs(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("hi")
    result = check(str(tmp_path))
    assert result.exit_code == 0 and "skipped: no file tpuemb reads in this folder" in result.stderr


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "c.pbtxt"
    path.write_text(CLEAN)
    # (mocked: the suite may run as root, which chmod 000 does not stop)
    denied = PermissionError(13, "Permission denied")
    with mock.patch("tpuemb_cli.cli.inputs.open", side_effect=denied, create=True):
        result = check(str(path))
    assert result.exit_code == 2
    assert result.stderr == f"tpuemb: error: {path}: cannot read: Permission denied\n"


def test_symlink_loop(tmp_path: Path) -> None:
    loop = tmp_path / "loop.pbtxt"
    loop.symlink_to(loop)
    result = check(str(loop))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"tpuemb: error: {loop}: cannot read: ")
    # Walking a folder with a symlinked folder in it does not follow it.
    (tmp_path / "again").symlink_to(tmp_path)
    (tmp_path / "ok.pbtxt").write_text(CLEAN)
    walked = check(str(tmp_path))
    assert json.loads(walked.stdout)["summary"]["files_checked"] == 1


def test_a_named_fifo_is_read_and_a_walked_one_refused_without_blocking(tmp_path: Path) -> None:
    # Named, a FIFO is what `tpuemb check <(cat x.pbtxt)` reads: linted, as `cat` would read it.
    fifo = tmp_path / "pipe.pbtxt"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(CLEAN,))
    writer.start()
    result = check(str(fifo))
    writer.join(timeout=10)
    assert (result.exit_code, result.stderr) == (0, "")
    assert json.loads(result.stdout)["summary"]["files_checked"] == 1
    # Found in a folder, one with no writer would block the walk forever: refused unopened.
    walked = check(str(tmp_path))
    assert walked.exit_code == 2
    assert walked.stderr == f"tpuemb: error: {fifo}: not a regular file\n"


def test_huge_file_refused_before_reading(tmp_path: Path) -> None:
    huge = tmp_path / "huge.pbtxt"
    with huge.open("wb") as handle:
        handle.truncate(1024**3)  # 1 GB, sparse: nothing is written, and nothing must be read
    started = time.monotonic()
    result = check(str(huge))
    assert time.monotonic() - started < 5
    assert result.exit_code == 2
    assert result.stderr == (
        f"tpuemb: error: {huge}: file is 1073741824 bytes, larger than the limit of 268435456 "
        "bytes (raise it with --max-file-size)\n"
    )


def test_binary_given_as_text_and_text_as_binary(tmp_path: Path) -> None:
    # Each is read as what it holds, with a note (TE008, info): both configs are clean.
    as_text = tmp_path / "binary.pbtxt"
    as_text.write_bytes((CONFIGS / "multi_table_mixed_optimizers.pb").read_bytes())
    result = check(str(as_text))
    assert result.exit_code == 0 and rules(result) == ["TE008"]
    assert "this file holds binary format, not text; read as binary" in result.stdout
    as_binary = tmp_path / "text.pb"
    as_binary.write_text(CLEAN)
    result = check(str(as_binary))
    assert result.exit_code == 0 and rules(result) == ["TE008"]
    assert "this file holds text format, not binary; read as text" in result.stdout
    # Neither text nor a binary message: one finding says so.
    garbage = tmp_path / "garbage.pbtxt"
    garbage.write_bytes(b"\xff\xfe\x00 not a config")
    result = check(str(garbage))
    assert result.exit_code == 1 and rules(result) == ["TE009"]


def test_wrong_type(tmp_path: Path) -> None:
    path = tmp_path / "c.pbtxt"
    path.write_text(CLEAN)
    result = check("--type", "OptimizationParameters", str(path))
    assert result.exit_code == 1 and set(rules(result)) == {"TE002"}


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pbtxt"
    path.write_bytes(b"")
    result = check(str(path))
    assert result.exit_code == 1
    assert rules(result) == ["TE009"]  # one finding (issue 38), not four
    for text, name in ((b"# only a comment\n", "c.pbtxt"), (b"{}", "o.json"), (b"", "e.pb")):
        other = tmp_path / name
        other.write_bytes(text)
        assert rules(check(str(other))) == ["TE009"], name


@pytest.mark.slow  # 20,000-field files, twice: seconds
def test_quadratic_shapes_are_linear(tmp_path: Path) -> None:
    # A very long line, and thousands of repeated fields: ten times the size must take about ten
    # times as long (quadratic work would take a hundred), measured against the same shape at a
    # tenth of the size in the same run -- not against a clock, which a busy machine moves.
    shapes: dict[str, Callable[[int], str]] = {
        "line": lambda n: "feature_descriptor { input_shape: 1 }" * n,
        "repeated": lambda n: "feature_descriptor { table_id: 0 }\n" * n + "mode: TRAINING\n",
    }
    for name, text in shapes.items():
        took: dict[int, float] = {}
        for count in (2_000, 20_000):
            path = tmp_path / f"{name}_{count}.pbtxt"
            path.write_text(text(count))
            runs = []
            for _ in range(2):
                started = time.perf_counter()
                result = check(str(path))
                runs.append(time.perf_counter() - started)
                assert result.exit_code == 1
            took[count] = min(runs)
        assert took[20_000] < 30 * took[2_000], (name, took)


@pytest.mark.slow  # builds and lints a 100,000-table config: seconds
def test_a_hundred_thousand_tables(tmp_path: Path) -> None:
    from bench.configs import build

    path = tmp_path / "big.pb"
    path.write_bytes(build(100_000).SerializeToString())
    started = time.monotonic()
    result = check(str(path))
    assert (result.exit_code, rules(result)) == (0, [])
    assert time.monotonic() - started < 60


def test_a_file_that_grows_after_stat_is_read_whole_or_refused(tmp_path: Path) -> None:
    # tpuemb reads as many bytes as stat reported (plus one, to notice growth), then the rest.
    from tpuemb_cli.cli import inputs

    path = tmp_path / "c.pbtxt"
    path.write_text(CLEAN)
    real = path.stat()
    shrunk = os.stat_result((*real[:6], 10, *real[7:]))  # st_size: 10 bytes
    item = inputs.Input(str(path), str(path))
    with mock.patch("tpuemb_cli.cli.inputs.os.stat", return_value=shrunk):
        assert inputs.read(item) == CLEAN.encode()
        with pytest.raises(inputs.InputError, match="grew past the limit"):
            inputs.read(item, max_bytes=len(CLEAN) - 1)


@pytest.mark.parametrize("depth", [203, 300, 5_000, 50_000])
@pytest.mark.slow
def test_yaml_too_deep_is_refused_whatever_libyaml_stops_at(tmp_path: Path, depth: int) -> None:
    # libyaml builds differ on whether they stop at 1,000 levels (PyYAML 6.0.3's did not, 6.0.4's
    # does): the verdict must not depend on it -- the loader's depth refusal, not TE009.
    path = tmp_path / "deep.spec.yaml"
    path.write_text("tables: " + "[" * depth + "]" * depth)
    result = CliRunner().invoke(main, ["check", "--isolated", "--format", "concise", str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}:1:210: TE001 [error] the YAML nests deeper than 202 levels" in result.output


@pytest.mark.parametrize(
    "name",
    [
        "a.pbtxt",
        "/a/b.pbtxt",
        "./a.pbtxt",
        "a//b.pbtxt",
        "a/./b",
        "a/",
        ".",
        "..",
        "../a",
        "//a",
        "///a",
    ],
)
def test_an_input_is_opened_by_the_name_pathlib_would_give_it(name: str) -> None:
    # Inputs are strings (pathlib is not imported to check a named file), spelled as a Path of
    # the name would be: `a.pbtxt/` names the file, as Path("a.pbtxt/") did.
    from tpuemb_cli.cli.inputs import spelled

    assert spelled(name) == str(Path(name))
