"""A TPU's name is read by one strict grammar on every surface (issue 36, point 14): ``--tpu`` of
each command that takes it, ``tpu`` in ``.tpuemb.toml`` and ``[tool.tpuemb]``, the language
server's settings. ``v5p--128``, ``v5p-``, digits of other scripts (``v5p-١٢٨``, fullwidth,
superscripts), whitespace around, a leading zero, an exponent, a trailing dash are refused,
naming the forms that are read, where they were read as v5p-128 or v5p (or, for a superscript,
failed in ``int``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.helpers import CLEAN, SPEC
from tpuemb_cli.cli import main
from tpuemb_cli.model.accelerators import FORMS, UnknownTpu, parse
from tpuemb_cli.server.settings import _check

MALFORMED = [
    "v5p--128",
    "v5p-",
    "v5p-\u0661\u0662\u0668",  # Arabic-Indic digits
    "v5p-\uff11\uff12\uff18",  # fullwidth digits
    "v5p-\u00b9\u00b2\u2078",  # superscripts
    "v5p-\u00b2",
    " v5p-128",
    "v5p-128 ",
    "\tv5p",
    "v5p-0",
    "v5p-00128",
    "v5p-1e3",
    "v5p-128-",
    "",
    "v 5p",
    "v5-p",
    "TPU  v5p",
]
FORMS_SAID = f"is not written as a TPU is named: {FORMS}"


@pytest.mark.parametrize("text", MALFORMED)
def test_the_parser_refuses_what_is_not_the_grammar(text: str) -> None:
    with pytest.raises(UnknownTpu) as raised:
        parse(text)
    assert str(raised.value).startswith(f"TPU {text!r} {FORMS_SAID}")


def test_a_ten_thousand_digit_count_is_refused() -> None:
    with pytest.raises(UnknownTpu, match=r"unknown TPU 'v5p-1111.*or an accelerator type"):
        parse("v5p-" + "1" * 10_000)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("v5p-128", "v5p-128"),
        ("V5P-128", "v5p-128"),  # any case: the module's docstring says so
        ("TPU v5p", "v5p"),
        ("tpu-v5p", "v5p"),
        ("TPU7x", "tpu7x"),
        ("TPU 7x", "tpu7x"),
        ("trillium", "v6e"),
        ("tpu v5p-8", "v5p-8"),
        ("v5litepod-16", "v5litepod-16"),
    ],
)
def test_the_documented_forms_are_read(text: str, name: str) -> None:
    assert parse(text).name == name


@pytest.mark.parametrize("text", ["v5p--128", "v5p-", "v5p-\u0661\u0662\u0668", "v5p-\u00b2"])
@pytest.mark.parametrize(
    "command",
    [
        ["check"],
        ["explain", "--memory"],
        ["diff"],
    ],
)
def test_every_command_that_takes_tpu_refuses_it(
    command: list[str], text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.pbtxt").write_text(CLEAN)
    Path("b.pbtxt").write_text(CLEAN)
    files = ["a.pbtxt", "b.pbtxt"] if command == ["diff"] else ["a.pbtxt"]
    result = CliRunner().invoke(main, [*command, "--tpu", text, *files])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert f"Error: Invalid value for '--tpu': TPU {text!r} {FORMS_SAID}" in result.stderr


@pytest.mark.parametrize(
    ("file", "written", "line"),
    [
        (".tpuemb.toml", 'tpu = "{}"\n', 1),
        ("pyproject.toml", '[tool.tpuemb]\ntpu = "{}"\n', 2),
    ],
)
@pytest.mark.parametrize("text", ["v5p--128", "v5p-", "v5p-\uff11\uff12\uff18", "v5p-00128"])
def test_settings_refuse_it_as_a_configuration_error(
    file: str, written: str, line: int, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.pbtxt").write_text(CLEAN)
    Path(file).write_text(written.format(text), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "a.pbtxt"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(
        f"tpuemb: error: {tmp_path / file}:{line}:1: `tpu`: TPU {text!r} {FORMS_SAID}"
    )


# The server end to end: tests/server/test_settings.py
# (test_a_tpu_setting_outside_the_grammar_is_a_warning).
@pytest.mark.parametrize("text", ["v5p--128", "v5p-", "v5p-\u0661\u0662\u0668", " v5p"])
def test_the_server_settings_refuse_it(text: str) -> None:
    message, value = _check("tpu", text)
    assert value is None
    assert message is not None and message.startswith(f"TPU {text!r} {FORMS_SAID}")


@pytest.mark.parametrize("text", ["v5p--128", "v5p-\uff18", "v5p-"])
def test_a_specs_accelerator_is_read_by_the_same_grammar(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.spec.yaml").write_text(
        SPEC.replace("topology: {", f'topology: {{accelerator: "{text}", '), encoding="utf-8"
    )
    result = CliRunner().invoke(main, ["check", "--isolated", "--format", "concise", "s.spec.yaml"])
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith(f"s.spec.yaml:8:12: TE724 [error] TPU {text!r} {FORMS_SAID}")
