"""Adding an output format or an input encoding is one module plus one registry row: the CLI
offers what the registries hold, and nothing else lists their names. Also the regressions of the
re-layout's bugs: `convert --to yaml` wrote JSON; `--add-suppressions` dropped a byte-order mark."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tpuemb_cli import formatters
from tpuemb_cli.cli import main
from tpuemb_cli.load import encodings, load_bytes

from .helpers import CLEAN, CONFIGS, SPEC


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def dummy_modules() -> Iterator[dict[str, types.ModuleType]]:
    """Registers a module under a name for the import machinery, removed afterwards."""
    added: dict[str, types.ModuleType] = {}
    yield added
    for name in added:
        sys.modules.pop(name, None)


def _module(added: dict[str, types.ModuleType], name: str, **functions: object) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(functions)
    sys.modules[name] = added[name] = module


def test_a_format_registered_at_run_time_is_offered_by_the_cli(
    tmp_path: Path, dummy_modules: dict[str, types.ModuleType]
) -> None:
    def format_report(report: formatters.Report, color: bool) -> str:
        return f"{len(report.findings)} findings\n"

    _module(dummy_modules, "dummy_format", format_report=format_report)
    (tmp_path / "a.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 0"))
    assert "counts" not in invoke("check", "--help")[1]
    formatters.register("counts", "dummy_format")
    try:
        assert "counts" in invoke("check", "--help")[1]
        assert invoke("check", "--format", "counts", str(tmp_path / "a.pbtxt")) == (
            1,
            "1 findings\n",
            "",
        )
    finally:
        del formatters.FORMATS["counts"]
    code, _, stderr = invoke("check", "--format", "counts", str(tmp_path / "a.pbtxt"))
    assert code == 2 and "'counts' is not one of" in stderr


def test_an_encoding_registered_at_run_time_is_read_and_written(
    tmp_path: Path, dummy_modules: dict[str, types.ModuleType]
) -> None:
    # A toy encoding: the JSON mapping, upside down. One codec module, one row.
    json_codec = encodings.get("json").module()

    def load(data: bytes, name: str, message_type: str | None) -> object:
        document = json_codec.load(data[::-1], name, message_type)
        return document._replace(format="reversed")

    def render(message: object) -> bytes:
        rendered: bytes = json_codec.render(message)
        return rendered[::-1]

    _module(dummy_modules, "dummy_codec", load=load, render=render)
    config = tmp_path / "a.rjson"
    config.write_bytes(b'{"mode": "TRAINING"}'[::-1])
    encodings.register(encodings.Encoding("reversed", (".rjson",), "dummy_codec"))
    try:
        assert "reversed" in invoke("convert", "--help")[1]
        code, stdout, _ = invoke("check", "--format", "json", str(config))
        assert code == 1 and {f["rule"] for f in json.loads(stdout)["findings"]} >= {"TE410"}
        code, stdout, _ = invoke("convert", str(config), "--to", "reversed")
        assert code == 0 and json.loads(stdout[::-1]) == {"mode": "TRAINING"}
        assert load_bytes(config.read_bytes(), "x.rjson").format == "reversed"
    finally:
        del encodings.ENCODINGS["reversed"], encodings.EXTENSIONS[".rjson"]


def test_convert_to_yaml_writes_yaml_that_reads_back_the_same(tmp_path: Path) -> None:
    # It once printed JSON and exited 0.
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    code, stdout, stderr = invoke("convert", str(spec), "--to", "yaml")
    assert (code, stderr) == (0, "")
    assert not stdout.lstrip().startswith("{")
    assert yaml.safe_load(stdout)["tables"] == [
        {"name": "video", "vocabulary_size": 1000, "dim": 16}
    ]
    again = tmp_path / "again.yaml"
    again.write_text(stdout)
    original = load_bytes(spec.read_bytes(), str(spec))
    back = load_bytes(again.read_bytes(), str(again))
    assert list(back.problems) == []
    assert back.message == original.message
    # A config too: YAML of any message type, read back with --type.
    code, stdout, _ = invoke("convert", str(CONFIGS / "custom_optimizer.pb"), "--to", "yaml")
    assert code == 0
    as_yaml = tmp_path / "c.yaml"
    as_yaml.write_text(stdout)
    config = load_bytes((CONFIGS / "custom_optimizer.pb").read_bytes(), "c.pb")
    assert load_bytes(as_yaml.read_bytes(), "c.yaml", None, config.message_type).message == (
        config.message
    )


def test_add_suppressions_keeps_a_byte_order_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = CLEAN.replace("dimension: 16", "dimension: 0")
    for name, body in (("lf.pbtxt", text), ("crlf.pbtxt", text.replace("\n", "\r\n"))):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + body.encode())
        code, _, stderr = invoke("check", "--add-suppressions", name)
        assert code == 0, stderr
        written = (tmp_path / name).read_bytes()
        assert written.startswith(b"\xef\xbb\xbf") and not written.startswith(b"\xef\xbb\xbf" * 2)
        assert b"# tpuemb: ignore[TE403]" in written
        assert written.count(b"\r\n") == body.count("\r\n")
        assert invoke("check", name)[0] == 0


def test_the_pre_commit_hooks_match_every_extension_of_the_registry() -> None:
    # A YAML file cannot import the registry: this test is what keeps the two equal.
    hooks = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    extensions = {
        f".{e}"
        for e in [
            "pbtxt",
            "textproto",
            "txtpb",
            "prototxt",
            "json",
            "keras",
            "pb",
            "binpb",
            "yaml",
            "yml",
        ]
    }
    assert set(encodings.EXTENSIONS) == extensions
    for hook in hooks:
        assert hook["files"] == r"\.(" + "|".join(e[1:] for e in encodings.EXTENSIONS) + ")$"
        assert "--documents-only" in hook["entry"]


def test_a_narrowed_hook_passes_other_names_and_they_are_skipped(tmp_path: Path) -> None:
    # `files: ^configs/` replaces the hook's extension pattern: pre-commit then passes
    # configs/NOTES.md and configs/gen.py too. They are skipped, not reported as broken configs.
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "NOTES.md").write_text("# Notes\nTables are sized by the launcher.\n")
    (configs / "gen.py").write_text("print('table_descriptor {}')\n")
    (configs / "model.pbtxt").write_text(CLEAN)
    (configs / "values.yaml").write_text("replicaCount: 2\nimage: {repository: app}\n")
    names = [str(configs / n) for n in ("NOTES.md", "gen.py", "model.pbtxt", "values.yaml")]
    assert invoke("check", "--documents-only", "--format", "concise", *names) == (
        0,
        "All checks passed (1 file checked).\n",
        "",
    )
