"""keras-table-stacking-stacks-nothing (TE770), and TE766 for the same forms with TensorFlow;
tests/test_keras_oracle_verdicts.py checks them against keras-rs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.keras_config_text import findings, model_text, table, write

IGNORED_FORMS = [
    ({"group": ["items", "tags"]}, "an object"),
    (3, "a number"),
    (True, "true"),
    ([], "an empty list"),
]


def _stacked(path: Path, backend: str = "jax") -> list[tuple[str, list[str]]]:
    from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
    from tpuemb_cli.keras import specs_from_file

    ((_, spec),) = specs_from_file(
        path, backend=backend, global_device_count=4, num_sc_per_device=4, accelerator="v5p"
    )
    return [
        (stack.stack_name, [t.table_name for t in stack.table_specs])
        for stack in compile_jax_spec(spec).stacked_table_specs
    ]


def test_a_stacking_the_jax_layer_ignores_stacks_nothing_and_is_a_warning(
    tmp_path: Path,
) -> None:
    tables = [table("items"), table("tags")]
    for value, said in IGNORED_FORMS:
        path = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}, value))
        found = findings(path)
        assert [(f["rule"], f["severity"]) for f in found] == [("TE770", "warning")], found
        assert f"table_stacking is {said}: keras-rs's JAX layer stacks" in found[0]["message"]
        # One stack a table, as the layer builds: not auto's stack of the two.
        assert _stacked(path) == [("items", ["items"]), ("tags", ["tags"])], value
    auto = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}))
    assert _stacked(auto) == [("items_tags", ["items", "tags"])]


def test_the_tensorflow_conversion_refuses_what_the_jax_layer_ignores(tmp_path: Path) -> None:
    tables = [table("items"), table("tags")]
    for value, said in IGNORED_FORMS:
        path = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}, value))
        found = [f for f in findings(path, "--keras-backend", "tensorflow") if f["rule"] == "TE766"]
        assert len(found) == 1, (value, found)
        assert (
            f"table_stacking is {said}, which Keras-RS's TensorFlow conversion refuses"
            in (found[0]["message"])
        )


def test_a_stacking_on_a_layer_with_no_sparsecore_table_is_not_reported(tmp_path: Path) -> None:
    tables = [table("items", placement="default_device", optimizer="adam")]
    path = write(tmp_path, model_text(tables, {"item": 0}, {"group": ["items"]}))
    assert findings(path) == []


def test_a_live_stacking_the_jax_layer_ignores_reads_as_its_saved_file() -> None:
    from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
    from tpuemb_cli.keras import lint_keras

    items = TableConfig(name="items", vocabulary_size=64, embedding_dim=8)
    feature = FeatureConfig(name="item", table=items, input_shape=(32, 1), output_shape=(32, 8))
    values: list[Any] = [{"group": ["items"]}, (), []]
    for value in values:
        layer = DistributedEmbedding({"item": feature}, table_stacking=value)
        found = lint_keras(layer, global_device_count=4, num_sc_per_device=4, accelerator="v5p")
        assert [f.name for f in found] == ["keras-table-stacking-stacks-nothing"], value
