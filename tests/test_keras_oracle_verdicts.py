"""The verdicts of tests/rules/test_keras_duplicate_table_name.py, test_keras_table_stacking_
stacks_nothing.py and TE768/TE769 against keras-rs itself (`make test-keras`; skipped where
keras-rs is not installed): layers built by keras-rs 0.4.0 on CPU, saved, and
tpuemb's verdict on the file compared with what the library does.

- Two tables of one name on the SparseCores (the simulated SparseCore of tests/keras_probe.py):
  the layer builds one table variable, and tpuemb's TE771 names the other; on the default device
  (a CPU) the layer keeps both, and tpuemb says nothing.
- A `table_stacking` the JAX layer ignores (an object, a number, a boolean, an empty list): the
  layer builds, one stack a table, which tpuemb's stacks for the saved file equal, with TE770.
- Placement `"auto"` on each chip: `_has_sparsecore()` itself decides, from the device kind of a
  fake TPU device list (`jax.devices("tpu")`), which tables the layer puts on the SparseCores;
  tpuemb's explain places the same tables there for that chip, TE768 names exactly the "auto"
  tables the layer leaves on the TensorCores of a chip that has SparseCores (TPU7x), and TE769
  exactly the default-device tables with an optimizer of their own.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras_rs")
pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

import jax
import keras
from click.testing import CliRunner

from tests import keras_probe
from tests.keras_layers import case, feature, layer, optimizer, table
from tpuemb_cli.cli import main
from tpuemb_cli.keras import specs_from_file
from tpuemb_cli.spec.jax_compiler import compile_jax_spec


def _check(path: Path, *options: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", *options, str(path)])
    assert result.exit_code in (0, 1), result.output
    found: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return found


def _tables_flagged(found: list[dict[str, Any]], rule: str) -> set[int]:
    """The table indexes (layer 0) a rule's findings are on."""
    flagged = set()
    for finding in found:
        if finding["name"] == rule:
            field = finding["field"]
            assert field.startswith("layers[0].tables["), finding
            flagged.add(int(field.split("tables[")[1].split("]")[0]))
    return flagged


def _saved(data: dict[str, Any], sparsecore: bool) -> tuple[Path, Any]:
    folder = Path(tempfile.mkdtemp(prefix="keras-oracle-verdicts-"))
    path = folder / f"{data['name']}.keras"
    (made,) = keras_probe.save(case(data["name"], data, sparsecore=sparsecore), path)
    return path, made


def _our_stacks(path: Path) -> dict[str, list[str]]:
    ((_, spec),) = specs_from_file(
        path, global_device_count=4, num_sc_per_device=4, accelerator="v5p"
    )
    return {
        stack.stack_name: sorted(t.table_name for t in stack.table_specs)
        for stack in compile_jax_spec(spec).stacked_table_specs
    }


# --- R1: two tables of one name ---


def _one_name(name: str, placement: str) -> dict[str, Any]:
    sgd = optimizer("SGD", learning_rate=0.1)
    return layer(
        name,
        [
            table("items", 64, 8, sgd, placement=placement),
            table("items", 200, 8, optimizer("Adagrad", learning_rate=0.1), placement=placement),
            table("tags", 8, 8, sgd, placement=placement),
        ],
        # Named apart (a feature named after its table would make two "items_ids"), in the
        # tables' order once sorted.
        [feature("f0", 0, 8), feature("f1", 1, 8), feature("f2", 2, 8)],
        table_stacking=None,  # a variable a table, to see which one is built
    )


def test_two_tables_of_one_name_on_sparsecores_build_one_and_te771_names_the_other() -> None:
    path, made = _saved(_one_name("one_name_sc", "sparsecore"), sparsecore=True)
    # The library: one table variable "items", of the first table's 64 rows (the second's 200
    # would pad to 224), and no Adagrad slot.
    variables = {v.path.split("/")[-1]: tuple(v.shape) for v in made.weights}
    print("variables:", variables)
    assert variables["var:items:table"][0] == 64
    assert not any("accumulator" in name for name in variables)
    assert keras_probe.live_stacks(made) == {"items": ["items"], "tags": ["tags"]}
    # tpuemb: the same stacks for the saved file, and TE771 on the second table only.
    assert _our_stacks(path) == keras_probe.live_stacks(made)
    found = _check(path, "--tpu", "v5p-8")
    assert _tables_flagged(found, "keras-duplicate-table-name") == {1}
    assert [f["name"] for f in found] == ["keras-duplicate-table-name"]


def test_the_merged_tables_optimizer_is_never_converted() -> None:
    """The second table of a name is never converted: an optimizer the conversion refuses
    there (Adam's amsgrad) raises nothing, and tpuemb reports TE771 only, no TE762."""
    data = _one_name("one_name_refused", "sparsecore")
    data["tables"][1]["optimizer"] = optimizer("Adam", learning_rate=0.1, amsgrad=True)
    specs = keras_probe.converted(keras_probe.build_layer(data, sparsecore=True))
    assert sorted({s.table_spec.name for s in keras.tree.flatten(specs)}) == ["items", "tags"]
    path, _ = _saved(data, sparsecore=True)
    found = _check(path, "--tpu", "v5p-8")
    assert [f["name"] for f in found] == ["keras-duplicate-table-name"]


def test_two_tables_of_one_name_on_the_default_device_stay_apart() -> None:
    data = _one_name("one_name_cpu", "default_device")
    path, made = _saved(data, sparsecore=False)
    shapes = sorted(tuple(v.shape) for v in made.weights)
    print("weights:", shapes)
    assert shapes == [(8, 8), (64, 8), (200, 8)]
    found = _check(path, "--tpu", "v5p-8")
    assert not _tables_flagged(found, "keras-duplicate-table-name")


# --- R4: table_stacking the JAX layer ignores ---


@pytest.mark.parametrize(
    "value", [{"group": ["a", "b"]}, 2, True, []], ids=["object", "number", "bool", "empty"]
)
def test_a_stacking_the_layer_ignores_builds_unstacked_and_te770_says_so(value: Any) -> None:
    sgd = optimizer("SGD", learning_rate=0.1)
    data = layer(
        f"ignored_{type(value).__name__}",
        [table("a", 16, 8, sgd, placement="sparsecore"), table("b", 24, 8, sgd)],
        table_stacking=value,
    )
    path, made = _saved(data, sparsecore=True)
    live = keras_probe.live_stacks(made)
    assert live == {"a": ["a"], "b": ["b"]}, live
    assert made.get_config()["table_stacking"] == value
    assert _our_stacks(path) == live
    found = _check(path, "--tpu", "v5p-8")
    assert [(f["name"], f["severity"]) for f in found] == [
        ("keras-table-stacking-stacks-nothing", "warning")
    ]


# --- R5: "auto" decided by the device kind ---

# Each chip tpuemb knows with the device_kind its JAX devices report.
DEVICE_KINDS = {
    "v5p": "TPU v5",
    "v6e": "TPU v6 lite",
    "tpu7x": "TPU7x",
    "v5e": "TPU v5 lite",
    "v4": "TPU v4",
}


class _FakeTpu:
    def __init__(self, kind: str) -> None:
        self.device_kind = kind
        self.platform = "tpu"


def _placed_on_sparsecore(data: dict[str, Any], kind: str, monkeypatch: Any) -> set[int]:
    """The table indexes (in get_config's order) of the features the layer puts on
    "sparsecore" when `jax.devices("tpu")` reports devices of ``kind``: keras-rs's own
    `_has_sparsecore` and `_init_feature_configs_structures` decide; the layer is constructed
    (which is where placement is resolved), not built."""
    real = jax.devices

    def devices(backend: Any = None) -> Any:
        if backend == "tpu":
            return [_FakeTpu(kind)] * 4
        return real(backend)

    with monkeypatch.context() as patch:
        patch.setattr(jax, "devices", devices)
        made = keras_probe.build_layer(data)
        assert made._has_sparsecore() == (kind in ("TPU v5", "TPU v6 lite"))
    tables: list[Any] = []
    for f in keras.tree.flatten(made._feature_configs):
        if not any(f.table is t for t in tables):
            tables.append(f.table)
    on = made._placement_to_path_to_feature_config.get("sparsecore", {})
    return {i for i, t in enumerate(tables) if any(f.table is t for f in on.values())}


@pytest.mark.parametrize("chip", sorted(DEVICE_KINDS))
def test_auto_placement_follows_the_device_kind(chip: str, monkeypatch: Any) -> None:
    data = layer(
        f"auto_on_{chip}",
        [
            table("users", 32, 8, optimizer("Adagrad", learning_rate=0.1)),
            table("items", 32, 8),  # the default optimizer: TE769 has nothing to say
            table("tags", 16, 8, optimizer("SGD", learning_rate=0.1), placement="default_device"),
        ],
        # Sorted as the tables are, so that get_config keeps their order.
        [feature("f0_user", 0, 8), feature("f1_item", 1, 8), feature("f2_tag", 2, 8)],
    )
    path, _ = _saved(data, sparsecore=False)
    library = _placed_on_sparsecore(data, DEVICE_KINDS[chip], monkeypatch)
    print(chip, DEVICE_KINDS[chip], "-> tables on SparseCores:", sorted(library))
    explained = CliRunner().invoke(
        main, ["explain", "--memory", "--format", "json", "--tpu", chip, str(path)]
    )
    assert explained.exit_code == 0, explained.output
    tables = json.loads(explained.stdout)["layers"][0]["tables"]
    assert {i for i, t in enumerate(tables) if t["on_sparsecore"]} == library
    found = _check(path, "--tpu", chip)
    off = {0, 1, 2} - library
    has_sparsecores = chip in ("v5p", "v6e", "tpu7x")
    auto = {0, 1}
    expected_te768 = (off & auto) if has_sparsecores else set()
    assert _tables_flagged(found, "keras-auto-placement-on-tensorcores") == expected_te768
    # Table 1 keeps the default optimizer, table 2 has SGD and is always on the default device.
    assert _tables_flagged(found, "keras-ignored-table-optimizer") == off - {1}
