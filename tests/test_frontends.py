"""The front-ends' registration (tpuemb_cli/frontends): every kind of document has one front-end
that lints it, the engine dispatches through it, and a front-end's options are declared once and
surfaced from that declaration by the command line, the settings and --show-settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli import frontends
from tpuemb_cli.cli import main
from tpuemb_cli.engine import Engine
from tpuemb_cli.engine.settings import Settings, SettingsError, parse
from tpuemb_cli.model import schema

ENGINE = Path(__file__).parent.parent / "tpuemb_cli" / "engine"


def test_every_schema_kind_is_linted_by_exactly_one_front_end() -> None:
    kinds = {row.kind for row in schema.TYPES}
    owned = [kind for front_end in frontends.front_ends() for kind in front_end.kinds]
    assert len(owned) == len(set(owned))
    assert kinds <= set(owned)
    for kind in owned:
        assert callable(frontends.lint_of(kind)), kind


def test_the_engine_names_no_ecosystem() -> None:
    # What each ecosystem means to the engine is its front-end's: the engine's code names none.
    names = [front_end.name for front_end in frontends.front_ends()]
    names += ["keras", "jax", "tensorflow", "Keras-RS", "TensorFlow"]
    for path in ENGINE.glob("*.py"):
        code = path.read_text(encoding="utf-8").lower()
        for name in names:
            assert f"_{name.lower()}" not in code and f"{name.lower()}_" not in code, (path, name)


def test_a_kind_no_front_end_lints_is_an_error_of_the_caller() -> None:
    with pytest.raises(ValueError, match="no front-end lints documents of kind 'toy'"):
        Engine().run("toy", None, lambda *args: None)


def test_options_are_declared_once_and_have_their_default() -> None:
    declared = frontends.options()
    assert [option.name for option in declared] == ["keras-backend"]
    assert Settings().option("keras-backend") == "jax"
    settings = parse({"keras-backend": "tensorflow"}, Path("/x/.tpuemb.toml"))
    assert settings.option("keras-backend") == "tensorflow"
    with pytest.raises(SettingsError, match='must be "jax" or "tensorflow"'):
        parse({"keras-backend": "torch"}, Path("/x/.tpuemb.toml"))


@pytest.mark.parametrize("command", ["check", "explain", "diff"])
def test_each_option_is_a_flag_of_the_commands_that_read_documents(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    for option in frontends.options():
        assert f"--{option.name}" in result.output
        assert f"Overrides `{option.name}`" in " ".join(result.output.split())


def test_show_settings_lists_each_option(tmp_path: Path) -> None:
    (tmp_path / "a.pbtxt").write_text("table_descriptor { name: 'a' }\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        [
            "check",
            "--isolated",
            "--keras-backend",
            "tensorflow",
            "--show-settings",
            str(tmp_path / "a.pbtxt"),
        ],
    )
    assert 'keras-backend = "tensorflow"' in result.output, result.output


def test_every_kind_explain_reports_the_memory_of_has_a_front_ends_report() -> None:
    # explain --memory asks the front-end of the document's kind (`memory_<kind>`), or the row
    # refuses it with a text.
    for row in schema.TYPES:
        if row.explain and not row.memory_refusal:
            assert callable(frontends.memory_of(row.kind)), row.name


KERAS_MODEL = str(Path(__file__).parent.parent / "examples" / "keras" / "ranking.keras")


def test_the_api_takes_the_options_by_name() -> None:
    from tpuemb_cli.api import lint_file

    on_jax = {f.rule for f in lint_file(KERAS_MODEL, isolated=True)}
    on_tf = {
        f.rule
        for f in lint_file(KERAS_MODEL, isolated=True, options={"keras-backend": "tensorflow"})
    }
    # TensorFlow's layer keeps its SparseCore tables out of the saved weights (TE773); JAX's does
    # not: the option reached the engine.
    assert "TE773" in on_tf - on_jax
    with pytest.raises(ValueError, match="must be one of jax, tensorflow, not 'torch'"):
        lint_file(KERAS_MODEL, options={"keras-backend": "torch"})
    with pytest.raises(ValueError, match="unknown option 'kras-backend'"):
        lint_file(KERAS_MODEL, options={"kras-backend": "jax"})


def test_the_server_reads_the_options_in_the_editors_spelling() -> None:
    from tpuemb_cli.server import settings

    values, warnings = settings.read({"kerasBackend": "tensorflow", "tpu": "v5p"})
    assert warnings == []
    merged = settings.layered(values, {})
    assert merged.options == (("keras-backend", "tensorflow"),)
    assert merged.as_json()["kerasBackend"] == "tensorflow"
    _, warnings = settings.read({"kerasBackend": "torch"})
    assert warnings == [
        "setting 'kerasBackend': expected one of jax, tensorflow, got \"torch\"; it is ignored"
    ]
    _, warnings = settings.read({"kerasBackand": "jax"})
    assert "did you mean `kerasBackend`" in warnings[0], warnings
