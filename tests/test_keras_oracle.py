"""tpuemb's Keras-RS support against Keras-RS itself (`make test-keras`; skipped where keras-rs is
not installed -- the project never needs Keras).

Every case of tests/keras_layers.py (the fixtures, handwritten cases for each optimizer, option,
placement and table_stacking form, and drawn layers of 1 to 20 tables) is built on CPU with
keras-rs and saved as a `.keras` file; tests/keras_probe.py records Keras-RS's own verdicts. Then:

- `tpuemb check` on the saved file reports the refused-optimizer finding for exactly the tables
  whose optimizer Keras-RS's JAX conversion (`config_conversion.keras_to_jte_optimizer`) raises
  for, and for a layer exactly when converting its features raises;
- it reports an output-shape finding for exactly as many features as the layer returns a
  shape for that differs, in any dimension, from the one its config declares;
- where the library's stacking raises, the check reports an error;
- the EmbeddingSpecProto tpuemb compiles from the file's spec is the one jax-tpu-embedding makes
  from Keras-RS's converted features (`create_proto_from_feature_specs`), so the stacks are the
  library's;
- `spec_from_keras` of the live layer equals the spec read from its saved file;
- `lint_keras` flags a live layer's `table_stacking` (a tuple) exactly where the stacks Keras-RS
  builds live differ from those its saved model reloads with;
- a default_device table whose own optimizer cannot train it (a learning rate of 0) still
  changes in one step of `fit`, and `tpuemb check` reports its optimizer as ignored.

The glue below is the only place that names tpuemb's Keras API (issue 28).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import json
import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras_rs")
pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from click.testing import CliRunner
from google.protobuf import text_format

from tests import keras_probe
from tests.jax_release import as_010, records_training
from tests.keras_layers import DEVICES, FIXTURES, SPARSECORES, Case, all_cases
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec.compiler import version_refusal

FIXTURE_DATA = Path(__file__).parent / "data" / "keras"
VERSIONS = {
    name: importlib.metadata.version(name)
    for name in ("keras-rs", "keras", "jax", "jax-tpu-embedding")
}

# --- Glue: tpuemb's Keras API as keras-core exposes it. ---
# DEVICES x SPARSECORES is 4 v5p chips: jax-tpu-embedding counts 4 SparseCores a v5 device, and
# on a chip with SparseCores placement "auto" puts a table on them.
ACCELERATOR = "v5p"
CHECK_OPTIONS = ["--tpu", "v5p-8", "--keras-backend", "jax"]
REFUSED = "keras-unsupported-optimizer-option"
OUTPUT_DIM = "keras-output-dim-mismatch"
TABLE_PATH = re.compile(r"^layers\[(\d+)\]\.tables\[(\d+)\]")
LAYER_PATH = re.compile(r"^layers\[(\d+)\]")


# Imported by name: until tpuemb's Keras support (and `compile --target jax`) land, these modules
# are missing and the tests that call them fail.
TOPOLOGY: dict[str, Any] = {
    "backend": "jax",
    "global_device_count": DEVICES,
    "num_sc_per_device": SPARSECORES,
    "accelerator": ACCELERATOR,
}


def _keras_api() -> Any:
    return importlib.import_module("tpuemb_cli.keras")


def spec_of_layer(layer: Any) -> Any:
    return _keras_api().spec_from_keras(layer, **TOPOLOGY)


def specs_of_file(path: Path) -> list[tuple[str, Any]]:
    """(layer path, spec) for each DistributedEmbedding of a saved model, in the model's order."""
    found: list[tuple[str, Any]] = _keras_api().specs_from_file(path, **TOPOLOGY)
    return found


def lint_layer(layer: Any) -> list[dict[str, str]]:
    """`lint_keras` on a live layer: each finding's name, severity and field path."""
    found = _keras_api().lint_keras(layer, **TOPOLOGY)
    return [{"name": f.name, "severity": str(f.severity), "field": f.field} for f in found]


def lint_keras_findings(layer: Any) -> list[Any]:
    """`lint_keras`'s findings on a live layer, whole."""
    found: list[Any] = _keras_api().lint_keras(layer, **TOPOLOGY)
    return found


def compiled(spec: Any, version: str = "0.1.0") -> Any:
    """The EmbeddingSpecProto tpuemb compiles from a spec with a ``jax`` section, as
    jax-tpu-embedding ``version`` writes it."""
    compiler = importlib.import_module("tpuemb_cli.frontends.jax.spec.compiler")
    return compiler.compile_jax_spec(spec, version=version)


def check(path: Path) -> tuple[int, list[dict[str, Any]]]:
    """`tpuemb check --format json` on a saved model: exit code and findings."""
    result = CliRunner().invoke(main, ["check", "--format", "json", str(path), *CHECK_OPTIONS])
    assert result.exit_code in (0, 1), (result.exit_code, result.output)
    return result.exit_code, json.loads(result.stdout)["findings"]


def _layer_of(finding: dict[str, Any]) -> int:
    found = LAYER_PATH.match(finding["field"] or "")
    assert found, finding
    return int(found.group(1))


# --- The oracle's side. ---


class Built:
    """A case built and saved by keras-rs, and Keras-RS's verdicts on each of its layers."""

    def __init__(self, case: Case, folder: Path) -> None:
        self.case = case
        self.path = folder / f"{case['name']}.keras"
        self.save_error: str | None = None
        try:
            self.layers = keras_probe.save(case, self.path)
        except (ValueError, TypeError, KeyError) as error:
            # The SparseCore path converts and stacks while it builds: Keras-RS raises here on
            # a TPU too, and nothing is saved.
            self.save_error = f"{type(error).__name__}: {error}"
            self.layers = [keras_probe.build_layer(d, case["sparsecore"]) for d in case["layers"]]
        self.verdicts = [keras_probe.verdicts(layer) for layer in self.layers]
        self.output_shapes = [
            None if case["sparsecore"] else keras_probe.output_shapes(layer)
            for layer in self.layers
        ]


@functools.cache
def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="keras-oracle-"))


CASES = {case["name"]: case for case in all_cases()}


@functools.cache
def built(name: str) -> Built:
    return Built(CASES[name], _folder())


def saved(name: str) -> Built:
    found = built(name)
    if found.save_error is not None:
        pytest.skip(f"Keras-RS raised while building {name}: {found.save_error}")
    return found


NAMES = sorted(CASES)


def test_the_oracle_builds_and_saves_at_least_30_layers() -> None:
    print("oracle:", ", ".join(f"{name} {version}" for name, version in VERSIONS.items()))
    layers = sum(len(built(name).layers) for name in NAMES if built(name).save_error is None)
    refused = sum(1 for name in NAMES for v in built(name).verdicts if v["conversion"])
    stacked = sum(1 for name in NAMES for v in built(name).verdicts if v["stacks"])
    print(f"{layers} layers saved; {refused} refused by the conversion; {stacked} stacked")
    assert layers >= 30
    # Both verdicts occur, so neither comparison below is vacuous.
    assert refused >= 10 and stacked >= 10


@pytest.mark.parametrize("name", NAMES)
def test_check_refuses_exactly_the_tables_the_conversion_refuses(name: str) -> None:
    case = saved(name)
    _, findings = check(case.path)
    flagged: set[tuple[int, int]] = set()
    for finding in findings:
        if finding["name"] == REFUSED:
            found = TABLE_PATH.match(finding["field"])
            assert found, finding
            flagged.add((int(found.group(1)), int(found.group(2))))
    expected = {
        (index, position)
        for index, verdict in enumerate(case.verdicts)
        for position, table in enumerate(verdict["tables"])
        if verdict["table_conversion"].get(table)
    }
    assert flagged == expected, [v["table_conversion"] for v in case.verdicts]
    layers = {index for index, _ in flagged}
    assert layers == {i for i, v in enumerate(case.verdicts) if v["conversion"]}


@pytest.mark.parametrize("name", NAMES)
def test_check_reports_each_output_shape_the_layer_does_not_return(name: str) -> None:
    case = saved(name)
    if any(shapes is None for shapes in case.output_shapes):
        pytest.skip("built on the simulated SparseCore: it cannot run on CPU")
    _, findings = check(case.path)
    for index, verdict in enumerate(case.verdicts):
        returned = case.output_shapes[index]
        assert returned is not None
        # The whole shape: a batch, a rank or a width other than the returned one (an unknown
        # declared dimension matches any).
        differs = sum(
            1
            for got, declared in zip(returned, verdict["declared_output_shapes"], strict=True)
            if len(got) != len(declared)
            or any(d is not None and d != g for g, d in zip(got, declared, strict=True))
        )
        reported = [f for f in findings if f["name"] == OUTPUT_DIM and _layer_of(f) == index]
        assert len(reported) == differs, (returned, verdict["declared_output_shapes"])


@pytest.mark.parametrize("name", NAMES)
def test_check_reports_an_error_where_the_library_cannot_stack(name: str) -> None:
    case = saved(name)
    broken = [i for i, v in enumerate(case.verdicts) if v["stacking_error"]]
    if not broken:
        pytest.skip("the library stacks every layer of this case")
    exit_code, findings = check(case.path)
    assert exit_code == 1
    errors = {_layer_of(f) for f in findings if f["severity"] == "error"}
    assert set(broken) <= errors, [case.verdicts[i]["stacking_error"] for i in broken]


@pytest.mark.parametrize("name", NAMES)
def test_the_compiled_stacks_are_the_librarys(name: str) -> None:
    case = saved(name)
    specs = specs_of_file(case.path)
    assert len(specs) == len(case.verdicts)
    compared = 0
    for (_, spec), verdict in zip(specs, case.verdicts, strict=True):
        if verdict["proto"] is None:
            continue
        # The release Keras-RS ran on: 0.2.0's proto records each stack's activation limit, and
        # is compiled as that release's unless it names a schedule by a tag the spec does not
        # hold (then compared as 0.1.0's: tests/jax_release.py).
        theirs = verdict["proto"]
        if records_training(theirs) and version_refusal(spec, "0.2.0") is None:
            ours = compiled(spec, "0.2.0")
        else:
            ours, theirs = compiled(spec), as_010(theirs)
        ours_stacks = {
            s.stack_name: sorted(t.table_name for t in s.table_specs)
            for s in ours.stacked_table_specs
        }
        assert ours_stacks == verdict["stacks"]
        assert text_format.MessageToString(ours) == text_format.MessageToString(theirs)
        compared += 1
    if not compared:
        pytest.skip("the conversion or the stacking raised for every layer")


@pytest.mark.parametrize("name", NAMES)
def test_the_live_layer_and_its_saved_file_give_one_spec(name: str) -> None:
    case = saved(name)
    from_file = specs_of_file(case.path)
    assert len(from_file) == len(case.layers)
    for layer, (path, spec) in zip(case.layers, from_file, strict=True):
        assert path.split("/")[-1] == layer.name or layer.name in path
        assert spec_of_layer(layer) == spec, path


@pytest.mark.parametrize("name", NAMES)
def test_lint_keras_reports_an_error_where_keras_rs_raises_while_building(name: str) -> None:
    """The layers Keras-RS's SparseCore path refuses to build (a refused optimizer, a stack the
    library cannot make, a stack naming a table that is not on the SparseCores): nothing is
    saved, so the live layer is linted."""
    case = built(name)
    if case.save_error is None:
        pytest.skip("Keras-RS builds it")
    (layer,) = case.layers
    errors = [f for f in lint_layer(layer) if f["severity"].lower().endswith("error")]
    assert errors, case.save_error
    verdict = case.verdicts[0]
    refused = {
        position
        for position, table in enumerate(verdict["tables"])
        if verdict["table_conversion"].get(table)
    }
    flagged = set()
    for finding in errors:
        if finding["name"] == REFUSED:
            found = TABLE_PATH.match(finding["field"])
            assert found, finding
            flagged.add(int(found.group(2)))
    assert flagged == refused, case.save_error
    # A stack naming a table Keras-RS did not convert (on "default_device"): KeyError(name), and
    # keras-unsupported-table-stacking names that table.
    missing = re.fullmatch(r"KeyError: '(.*)'", case.save_error)
    if missing:
        stacked = [
            f for f in lint_keras_findings(layer) if f.name == "keras-unsupported-table-stacking"
        ]
        assert any(f"stacks {missing.group(1)!r}" in f.message for f in stacked), case.save_error


def _without_ids(config: Any, in_optimizer: bool = False) -> Any:
    """A config without what changes from process to process: Keras's `shared_object_id`s (object
    addresses) and an optimizer's default name, which Keras numbers up in a process ("sgd_52")."""
    if isinstance(config, dict):
        return {
            k: _without_ids(v, in_optimizer or k == "optimizer")
            for k, v in config.items()
            if k != "shared_object_id" and not (in_optimizer and k == "name")
        }
    if isinstance(config, list):
        return [_without_ids(v, in_optimizer) for v in config]
    return config


@pytest.mark.parametrize("name", [case["name"] for case in FIXTURES])
def test_the_committed_fixture_is_what_this_keras_rs_saves(name: str) -> None:
    """tests/data/keras/ was written by keras-rs 0.4.0: a newer release that saves its layers'
    configs differently shows here first (then rerun make_fixtures.py and read the diff)."""
    case = saved(name)

    def config(path: Path) -> Any:
        with zipfile.ZipFile(path) as archive:
            return _without_ids(json.loads(archive.read("config.json")))

    assert config(case.path) == config(FIXTURE_DATA / f"{name}.keras")


IGNORED_STACKING = "keras-ignored-table-stacking"
IGNORED_OPTIMIZER = "keras-ignored-table-optimizer"


@pytest.mark.parametrize("name", NAMES)
def test_lint_keras_flags_a_live_stacking_the_saved_model_does_not_share(name: str) -> None:
    """Built on the simulated SparseCore, the live layer stacks as Keras-RS's own
    `sparsecore_build` does with the `table_stacking` it was given; its saved config reloads
    with lists. keras-ignored-table-stacking is reported exactly where the two differ."""
    case = saved(name)
    if not case.case["sparsecore"]:
        pytest.skip("built on CPU: the live layer never stacks")
    compared = 0
    for layer, verdict in zip(case.layers, case.verdicts, strict=True):
        live = keras_probe.live_stacks(layer)
        if live is None or verdict["stacks"] is None:
            continue
        flagged = [f for f in lint_layer(layer) if f["name"] == IGNORED_STACKING]
        assert bool(flagged) == (live != verdict["stacks"]), (live, verdict["stacks"])
        compared += 1
    if not compared:
        pytest.skip("no layer stacked")


def test_a_default_device_tables_own_optimizer_is_never_used() -> None:
    """Keras-RS trains a default_device table with the model's optimizer: a table whose own SGD
    has a learning rate of 0 still changes in one step of fit. tpuemb reports the table's
    optimizer as ignored, and no other table's."""
    case = saved("default_device_optimizer")
    (data,) = case.case["layers"]
    trained = keras_probe.tensorcore_rows_trained(data)
    print("default_device tables changed by one step of fit:", trained)
    assert trained == {"country": True}
    _, findings = check(case.path)
    flagged = {
        int(found.group(2))
        for f in findings
        if f["name"] == IGNORED_OPTIMIZER and (found := TABLE_PATH.match(f["field"]))
    }
    assert flagged == {0}
