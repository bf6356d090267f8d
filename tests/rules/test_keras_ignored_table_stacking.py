from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _found(stacking: Any, backend: str = "jax") -> list[tuple[str, str, str]]:
    users, items = TableConfig("users", optimizer="sgd"), TableConfig("items", optimizer="sgd")
    layer = DistributedEmbedding(
        {"u": FeatureConfig("u", users), "i": FeatureConfig("i", items)},
        table_stacking=stacking,
    )
    found = lint_keras(layer, backend=backend, global_device_count=4, num_sc_per_device=4)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE767"]


def test_a_tuple_is_ignored_live_and_stacked_once_saved() -> None:
    assert _found((("users", "items"),)) == [
        (
            "layers[0].table_stacking",
            "layer 'distributed_embedding''s table_stacking is a tuple: keras-rs's JAX layer "
            "stacks only lists, so the layer you train stacks no tables at all, while the model "
            "it saves holds lists (['users', 'items']) and reloads stacked: their stacked "
            "variables differ",
            "pass lists: table_stacking=[[...]] (or None for no stacking)",
        )
    ]
    assert len(_found(("users", "items"))) == 1


def test_a_list_of_tuples_is_refused_live() -> None:
    [(field, message, _)] = _found([("users", "items")])
    assert field == "layers[0].table_stacking"
    assert "list of tuples: keras-rs's JAX layer raises ValueError" in message


def test_lists_strings_and_none_pass_and_tensorflow_is_te766s() -> None:
    for stacking in ([["users", "items"]], ["users", "items"], "auto", None):
        assert _found(stacking) == []
    assert _found((("users", "items"),), backend="tensorflow") == []
