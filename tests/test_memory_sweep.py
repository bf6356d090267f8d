"""``explain --memory --tpu v5p,v6e,tpu7x``: the sweep (issue 42, point 1). Its verdict for every
chip and slice is what ``explain --memory --tpu <that slice>`` says alone, on every shipped
example and on configs built to fit, nearly fit, not fit and not run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.helpers import MEMORY_EXAMPLES, MEMORY_EXAMPLES_ALIKE
from tpuemb_cli.cli import main
from tpuemb_cli.model.accelerators import UnknownTpu, sweep
from tpuemb_cli.model.chips import CHIPS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = list(MEMORY_EXAMPLES)
# A TensorCore config whose one table has rows of 32 with Adagrad and gradient accumulation (3
# arrays): 300 million rows on 1 core (115.2 GB), 330 million on 4 (31.7 GB a core), a thousand
# on 8: does not fit, near (on v6e), fits.
CONFIG = """\
table_descriptor {
  name: "ids" vocabulary_size: %d dimension: 32
  optimization_parameters { adagrad {} learning_rate { constant: 0.1 } }
}
feature_descriptor { name: "f" table_id: 0 input_shape: 64 }
mode: TRAINING num_hosts: 1 num_tensor_cores: %d
"""
BUILT = {
    "big.pbtxt": CONFIG % (300_000_000, 1),
    "near.pbtxt": CONFIG % (330_000_000, 4),
    "small.pbtxt": CONFIG % (1_000, 8),
}
# A slice or two of each kind of verdict (the slow tests sweep every chip's slices).
FEW = "v2,v3-8,v5litepod-4,v6e-1,v6e-4,tpu7x,v5p-8,v5p-16"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)
    for name, text in BUILT.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _alone(path: str, tpu: str) -> dict[str, Any]:
    result = invoke("explain", "--memory", "--format", "json", "--tpu", tpu, path)
    assert result.exit_code in (0, 1), result.output
    summary: dict[str, Any] = json.loads(result.stdout)["summary"]
    return summary


def _swept(path: str, tpus: str) -> dict[str, Any]:
    result = invoke("explain", "--memory", "--format", "json", "--tpu", tpus, path)
    assert result.exit_code in (0, 1), result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def _agrees(path: str, tpus: str) -> int:
    """Asserts each slice of the sweep says what the slice alone says; how many there were."""
    document = _swept(path, tpus)
    compared = 0
    for chip in document["sweep"]:
        for verdict in chip["slices"]:
            alone = _alone(path, verdict["accelerator"])
            keys = ("status", "unit", "used_bytes", "hbm_bytes", "share", "cannot_run")
            assert {key: verdict[key] for key in (*keys, "mismatch", "not_sized")} == {
                key: alone[key] for key in (*keys, "mismatch", "not_sized")
            }, (path, verdict["accelerator"])
            compared += 1
        # The smallest slice that fits is the first that fits and is the document's own.
        fitting = [
            v["accelerator"]
            for v in chip["slices"]
            if v["status"] in ("fits", "near") and not v["mismatch"]
        ]
        assert chip["smallest_fit"] == (fitting[0] if fitting else None)
    return compared


@pytest.mark.slow  # 1-3 s each: a dozen commands
@pytest.mark.parametrize("path", EXAMPLES)
def test_each_slice_says_what_it_says_alone_on_the_examples(here: Path, path: str) -> None:
    assert _agrees(path, FEW) == len(sweep(FEW))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUILT))
def test_each_slice_says_what_it_says_alone_on_built_configs(here: Path, name: str) -> None:
    assert _agrees(str(here / name), FEW) == len(sweep(FEW))


@pytest.mark.slow  # 10-50 s each: two hundred commands
@pytest.mark.parametrize("path", EXAMPLES)
def test_every_slice_of_every_chip(here: Path, path: str) -> None:
    assert _agrees(path, "all") == len(sweep("all"))


def test_the_statuses_of_the_built_configs(here: Path) -> None:
    statuses = {
        name: {
            v["accelerator"]: v["status"]
            for chip in _swept(str(here / name), "v5e,v6e,v5p-8,tpu7x")["sweep"]
            for v in chip["slices"]
        }
        for name in BUILT
    }
    # 115.2 GB a core: more than any core's HBM.
    assert statuses["big.pbtxt"]["v6e-1"] == "does-not-fit"
    assert statuses["big.pbtxt"]["v5p-8"] == "does-not-fit"
    # 31.7 GB a core of 4: under a v6e core's 32 GiB, with less than 20% left.
    assert statuses["near.pbtxt"]["v6e-4"] == "near"
    assert statuses["small.pbtxt"]["v6e-8"] == "fits"
    # TensorFlow does not run on TPU7x.
    assert {statuses[name]["tpu7x"] for name in BUILT} == {"cannot-run"}


def test_the_text_names_the_smallest_slice_and_why_a_chip_cannot(here: Path) -> None:
    result = invoke("explain", "--memory", "--tpu", "v6e,tpu7x", str(here / "small.pbtxt"))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "TPU v6e: the smallest slice that fits: v6e-8 (8 chips)" in lines
    assert (
        "TPU tpu7x: cannot run it: TensorFlow does not run on TPU7x (its Cloud TPU page: "
        '"TensorFlow is not supported"; JAX is)'
    ) in lines
    # Slices with the same figures and verdict are one row; the mismatched are marked.
    assert any(line.strip().startswith("v6e-1 .. v6e-4 (2 slices)") for line in lines)
    assert any(line.strip().startswith("* not the slice it is laid out for") for line in lines)


def test_a_slice_that_fits_nothing_says_so(here: Path) -> None:
    result = invoke("explain", "--memory", "--tpu", "v6e-1,v5e", str(here / "big.pbtxt"))
    assert result.exit_code == 0  # not fitting is what --memory explains, not an error
    assert "TPU v6e: no slice fits" in result.stdout.splitlines()


def test_keras_layers_convert_for_each_slice(here: Path) -> None:
    document = _swept("examples/keras/ranking.keras", "v6e-1,v6e-8,tpu7x")
    by_name = {v["accelerator"]: v for chip in document["sweep"] for v in chip["slices"]}
    # The COO buffers grow with the devices: each slice is sized for itself.
    assert by_name["v6e-1"]["used_bytes"] < by_name["v6e-8"]["used_bytes"]
    assert by_name["tpu7x"]["status"] == "not-sized"
    assert by_name["tpu7x"]["not_sized"] == "no table goes to the SparseCores"


def test_the_list_is_read_as_tpus_are() -> None:
    assert [a.name for a in sweep("v5e")] == [
        "v5litepod-1", "v5litepod-4", "v5litepod-8", "v5litepod-16", "v5litepod-32",
        "v5litepod-64", "v5litepod-128", "v5litepod-256",
    ]  # fmt: skip
    assert [a.name for a in sweep("tpu7x, v6e-8 ,v6e-8")] == ["tpu7x", "v6e-8"]
    everything = sweep("all")
    assert {a.chip.name for a in everything} == {chip.name for chip in CHIPS}
    for bad in ("v5p,", ",v5p", "v5p,,v6e"):
        with pytest.raises(UnknownTpu, match="an empty name"):
            sweep(bad)
    with pytest.raises(UnknownTpu, match="v9x"):
        sweep("v5p,v9x")


def test_bad_lists_are_usage_errors(here: Path) -> None:
    for tpus in ("v5p,v9x", "v5p,", "v5p-7,v6e"):
        result = invoke("explain", "--memory", "--tpu", tpus, "examples/ranking_model.pbtxt")
        assert result.exit_code == 2, tpus
        assert "Invalid value for '--tpu'" in result.stderr
    result = invoke("explain", "--tpu", "v5p,v6e", "examples/ranking_model.pbtxt")
    assert result.exit_code == 2
    assert "is for --memory" in result.stderr


def test_the_docs_sample_is_what_it_prints(here: Path) -> None:
    page = (ROOT / "docs" / "memory.md").read_text(encoding="utf-8")
    command = "$ tpuemb explain --memory --tpu v6e,tpu7x,v5e examples/jax/recommender.stacked.pbtxt"
    shown = page.split(command + "\n", 1)[1].split("```", 1)[0]
    result = invoke(*command.split()[2:])
    assert (result.exit_code, result.stdout) == (0, shown)


def test_slices_named_out_of_order_are_swept_smallest_first(here: Path) -> None:
    document = _swept("examples/keras/ranking.keras", "v6e-256,v6e-8,v6e-1")
    (chip,) = document["sweep"]
    assert [v["accelerator"] for v in chip["slices"]] == ["v6e-1", "v6e-8", "v6e-256"]
    assert chip["smallest_fit"] == "v6e-1"
    # Slices not next to each other among the chip's sizes are rows of their own.
    result = invoke("explain", "--memory", "--tpu", "v6e-256,v6e-1", str(here / "small.pbtxt"))
    assert ".." not in result.stdout


def test_one_chip_is_swept_with_a_star(here: Path) -> None:
    document = _swept(str(here / "small.pbtxt"), "v6e-*")
    assert [v["accelerator"] for v in document["sweep"][0]["slices"]][:2] == ["v6e-1", "v6e-4"]
    assert len(document["sweep"][0]["slices"]) == 8
    result = invoke("explain", "--memory", "--tpu", "v6e-8-*", str(here / "small.pbtxt"))
    assert result.exit_code == 2


def test_a_chip_whose_hbm_is_unknown_says_so(here: Path) -> None:
    result = invoke("explain", "--memory", "--tpu", "v2,v6e", "examples/ranking_model.pbtxt")
    assert (
        "TPU v2: its HBM is not known (docs/memory.md); nothing to compare with"
        in result.stdout.splitlines()
    )


def test_what_cannot_be_sized_says_why(here: Path) -> None:
    (here / "nocores.pbtxt").write_text(CONFIG.replace(" num_tensor_cores: %d", "") % 1000)
    document = _swept(str(here / "nocores.pbtxt"), "v6e-1,v6e-4")
    for verdict in document["sweep"][0]["slices"]:
        assert verdict["status"] == "not-sized"
        assert verdict["not_sized"] == "num_tensor_cores is 0: no cores to put the tables on"
    result = invoke("explain", "--memory", "--tpu", "v6e-1,v6e-4", str(here / "nocores.pbtxt"))
    assert "TPU v6e: not sized: num_tensor_cores is 0: no cores to put the tables on" in (
        result.stdout.splitlines()
    )


def test_check_takes_one_tpu_and_says_where_lists_go(here: Path) -> None:
    result = invoke("check", "--tpu", "v5p,v6e", "examples/ranking_model.pbtxt")
    assert result.exit_code == 2
    assert "a list (which of them it fits) is for `tpuemb explain --memory --tpu`" in (
        result.stderr
    )


# tests/sweep_check.py (`make test-sweep`) runs every memory test's `explain --memory` again as a
# sweep; it must catch a sweep that says another verdict, another figure or hides an error.


@pytest.mark.slow  # three comparisons of nine slices each
def test_the_sweep_check_catches_what_it_is_for(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests import sweep_check
    from tpuemb_cli.views import memory_formats

    runner = CliRunner()
    args = ["explain", "--memory", "examples/recommender.pbtxt"]
    sweep_check.compare(runner, main, args)  # the sweep as it is: no complaint
    render = memory_formats.render_sweep

    def planted(key: str, value: object) -> Any:
        def render_sweep(found: Any, output_format: str) -> str:
            document = json.loads(render(found, output_format))
            document["sweep"][0]["slices"][0][key] = value
            return json.dumps(document)

        return render_sweep

    for key, value in (("status", "planted"), ("used_bytes", -1)):
        with monkeypatch.context() as patch:
            patch.setattr(memory_formats, "render_sweep", planted(key, value))
            with pytest.raises(AssertionError, match="the sweep of"):
                sweep_check.compare(runner, main, args)
    # A sweep that hides the errors its slices have alone (the Keras model's two).
    from tpuemb_cli.cli import explain

    monkeypatch.setattr(explain, "_with_each_slice", lambda *_: [])
    with pytest.raises(AssertionError, match="exits 0, its slices alone"):
        sweep_check.compare(runner, main, ["explain", "--memory", "examples/keras/ranking.keras"])


def test_a_keras_layer_that_raises_on_a_chip_cannot_run_there(here: Path) -> None:
    from tests.keras_config_text import model_text, table, write

    path = str(write(here, model_text([table("users", placement="sparsecore")], {"u": 0})))
    document = _swept(path, "v4,v5p-8")
    by_name = {v["accelerator"]: v for chip in document["sweep"] for v in chip["slices"]}
    # keras-rs's JAX layer finds SparseCores on v5p and v6e only: "sparsecore" elsewhere raises.
    assert {by_name["v4-8"]["status"], by_name["v4-32"]["status"]} == {"cannot-run"}
    assert "finds no SparseCores on v4" in by_name["v4-8"]["cannot_run"]
    assert by_name["v5p-8"]["status"] == "fits"
    assert _agrees(path, "v4-8,v5p-8,v5e") == 1 + 1 + len(sweep("v5e"))
    text = invoke("explain", "--memory", "--tpu", "v4-8", path).stdout
    assert text.splitlines()[-1].startswith("TPU v4-8: cannot run it: layer m/embedding: table")


def test_every_example_with_a_memory_report_is_swept(here: Path) -> None:
    reported = set()
    for path in sorted((ROOT / "examples").rglob("*")):
        if path.is_file() and path.suffix != ".py":
            name = str(path.relative_to(ROOT))
            result = invoke("explain", "--memory", "--format", "json", name)
            if result.exit_code in (0, 1) and result.stdout.strip():
                reported.add(name)
    assert reported == set(MEMORY_EXAMPLES) | set(MEMORY_EXAMPLES_ALIKE)
