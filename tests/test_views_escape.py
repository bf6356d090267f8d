"""Every human view escapes what a user controls (issue 36, point 11): ``explain`` of each
document kind (TensorFlow config, spec, SparseCore spec, JAX EmbeddingSpecProto, Keras-RS
``.keras`` with each backend), ``explain --memory`` of each, ``diff`` of each pair kind in each
human format, ``check --format full|concise|github`` of each, ``check --diff``, and the usage
errors that name a file or a value -- with control characters in every name field (table,
feature, stack, layer, schedule) and in the file names. No raw control character reaches the
output (a JAX stack's and a Keras layer's stacks once printed theirs raw in ``explain``, the
github format a file's name, ``--diff`` its headers); JSON keeps the exact strings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.helpers import CLEAN, optimizer
from tests.hostile_views import HOSTILE, HOSTILE_FILE, Files, leaked, write
from tpuemb_cli.cli import main

KINDS = ("config", "spec", "sparsecore", "jax", "keras")
# How the names of the documents show (they hold a NUL, the file names do not).
DOCUMENT_NAME_SHOWN = "\\nFORGED\\r\\t\\x1b[31m\\u202e\\x85\\u2028\\x7f\\x00"
FILE_NAME_SHOWN = "\\nFORGED\\r\\t\\x1b[31m\\u202e\\x85\\u2028\\x7f"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Files]]:
    folder = tmp_path_factory.mktemp("hostile")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        yield {kind: Files(*(Path(p.name) for p in paths)) for kind, paths in write(folder).items()}


def invoke(*args: Any) -> Result:
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def shown_escaped(result: Result, *expected: str, names: int = 0) -> None:
    """No raw control character in ``result``'s output; each of ``expected`` in it, and at least
    ``names`` names shown escaped."""
    output = result.stdout + result.stderr
    assert leaked(output) == [], output
    for text in expected:
        assert text in output, output
    assert output.count("\\nFORGED\\r\\t\\x1b[31m\\u202e") >= names, output


NO_OPTION: list[str] = []
BACKENDS = {kind: [NO_OPTION] for kind in KINDS}
BACKENDS["keras"] = [["--keras-backend", "jax"], ["--keras-backend", "tensorflow"]]


@pytest.mark.parametrize("kind", KINDS)
def test_explain_and_its_memory_view(files: dict[str, Files], kind: str) -> None:
    old = files[kind].old
    for backend in BACKENDS[kind]:
        for args in (["explain"], ["explain", "--memory"]):
            for tpu in (["--tpu", "v5p-8"], ["--tpu", "v2"], []):
                result = invoke(*args, *tpu, *backend, old)
                assert result.exit_code == 0, result.output
                # The file's name, and names of the document (a memory view may cut a long one).
                shown_escaped(result, FILE_NAME_SHOWN, names=2)


@pytest.mark.parametrize("kind", KINDS)
def test_memory_json_keeps_the_exact_names(files: dict[str, Files], kind: str) -> None:
    result = invoke("explain", "--memory", "--format", "json", "--tpu", "v5p-8", files[kind].old)
    assert result.exit_code == 0, result.output
    strings = list(_strings(json.loads(result.stdout)))
    assert any(HOSTILE in text for text in strings)
    assert any(HOSTILE_FILE in text for text in strings)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("output_format", ["full", "concise", "github", "text"])
@pytest.mark.slow
def test_check_and_diff_in_each_human_format(
    files: dict[str, Files], kind: str, output_format: str
) -> None:
    check = invoke(
        "check", "--isolated", "--tpu", "v5p-8", "--format", output_format, files[kind].broken
    )
    assert check.exit_code == 1, check.output
    shown_escaped(check, DOCUMENT_NAME_SHOWN)
    old, new = files[kind].old, files[kind].new
    for pair in ((old, new), (new, old)):
        diff = invoke("diff", "--tpu", "v5p-8", "--format", output_format, *pair)
        assert diff.exit_code in (0, 1), diff.output
        shown_escaped(diff, FILE_NAME_SHOWN)
    # The files each command took, by name.
    listed = invoke("check", "--isolated", "--show-files", files[kind].broken)
    shown_escaped(listed, f"{FILE_NAME_SHOWN}.broken")
    listed = invoke("diff", "--show-files", old, new)
    shown_escaped(listed, f"{FILE_NAME_SHOWN}.next")


def test_a_file_name_in_a_fix_diff_is_quoted_as_git_quotes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name = f'fix{HOSTILE_FILE}"\\.pbtxt'
    Path(name).write_text(
        optimizer("ftrl { allow_zero_accumulator: true }\n    learning_rate { constant: 0.05 }")
    )
    result = invoke("check", "--isolated", "--diff", name)
    quoted = (
        '"%s/fix\\nFORGED\\r\\t\\033[31m\\342\\200\\256\\302\\205\\342\\200\\250\\177\\"\\\\.pbtxt"'
    )
    assert result.stdout.startswith(f"--- {quoted % 'a'}\n+++ {quoted % 'b'}\n@@ ")
    shown_escaped(result)


def test_usage_errors_that_name_a_file_or_a_value(
    files: dict[str, Files], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    hostile = HOSTILE_FILE
    config = tmp_path / f"config{hostile}.pbtxt"
    config.write_text(CLEAN)
    other = tmp_path / f"other{hostile}.json"
    other.write_text('{"name": "web"}')
    broken = tmp_path / f"bad{hostile}.pbtxt"
    broken.write_text("table_descriptor {")
    missing = f"missing{hostile}"
    runs = {
        ("check", f"{missing}.pbtxt"): 2,
        ("explain", f"{missing}.pbtxt"): 2,
        ("explain", "--memory", f"{missing}.pbtxt"): 2,
        ("diff", f"{missing}.pbtxt", config): 2,
        ("diff", config, f"{missing}.pbtxt"): 2,
        ("compile", f"{missing}.spec.yaml"): 2,
        ("convert", f"{missing}.pbtxt", "--to", "json"): 2,
        ("check", "--config", f"{missing}.toml", config): 2,
        ("diff", "--against-checkpoint", f"{missing}.index", config): 2,
        ("explain", other): 1,
        ("explain", broken): 1,
        ("compile", broken): 1,
        ("rule", f"x{hostile}"): 2,
        ("check", "--select", f"x{hostile}", config): 2,
        ("check", "--format", f"x{hostile}", config): 2,
        ("check", "--tpu", f"v5p{hostile}", config): 2,
        ("explain", config, f"extra{hostile}"): 2,
        (f"command{hostile}",): 2,
        ("check", f"--option{hostile}"): 2,
    }
    for args, code in runs.items():
        result = invoke(*args)
        assert result.exit_code == code, (args, result.output)
        shown_escaped(result, "FORGED")


@pytest.mark.parametrize("output_format", ["full", "concise", "github"])
def test_diff_of_a_config_and_a_spec_and_against_a_checkpoint(
    files: dict[str, Files], tmp_path: Path, output_format: str
) -> None:
    from tests import checkpoint_files

    config, spec = files["config"].old, files["spec"].old
    for pair in ((config, spec), (spec, config)):
        diff = invoke("diff", "--format", output_format, *pair)
        assert diff.exit_code == 1, diff.output
        shown_escaped(diff, FILE_NAME_SHOWN, names=3)
    # A checkpoint in a folder of a hostile name, of the config's table (a hostile name) with
    # another shape: a restore-error that names them.
    folder = tmp_path / f"run{HOSTILE_FILE}"
    folder.mkdir()
    variables = checkpoint_files.embedding(
        {f"video{HOSTILE}": (1000, 8)}, {f"video{HOSTILE}": ["accumulators"]}
    )
    checkpoint_files.save(folder / "ckpt-1.index", checkpoint_files.bundle(variables))
    against = invoke(
        "diff", "--format", output_format, "--against-checkpoint", folder / "ckpt-1.index", config
    )
    assert against.exit_code == 1, against.output
    shown_escaped(against, FILE_NAME_SHOWN, names=3)
