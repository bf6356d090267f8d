from typing import Any

from tests.keras_objects import SGD, DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


class ExponentialDecay:
    def __call__(self, step: int) -> float:
        return 0.1

    def get_config(self) -> dict[str, Any]:
        return {"initial_learning_rate": 0.1, "decay_steps": 100, "decay_rate": 0.9}


def _found(first: Any, second: Any, backend: str = "jax") -> list[tuple[str, str]]:
    tables = [
        TableConfig(n, optimizer=o, placement="sparsecore")
        for n, o in (("a", first), ("b", second))
    ]
    layer = DistributedEmbedding(
        {n: FeatureConfig(n, t) for n, t in zip("fg", tables, strict=True)}
    )
    found = lint_keras(
        layer, global_device_count=4, num_sc_per_device=4, accelerator="v5p", backend=backend
    )
    return [(f.field, f.message) for f in found if f.rule == "TE776"]


def test_one_schedule_in_two_optimizers_is_reported_on_the_second_table() -> None:
    schedule = ExponentialDecay()
    assert _found(SGD(schedule), SGD(schedule)) == [
        (
            "layers[0].tables[1].optimizer.schedule_shared_with",
            "table 'b' of layer 'distributed_embedding' has a learning-rate schedule that is one "
            "object with table 'a''s: the live layer stacks their tables together, but Keras "
            "saves the schedule twice and the loaded model has two, which stack apart: "
            "the weights a SparseCore layer saved (one stacked table) do not load (load_model "
            "raises ValueError, 'expected N variables, but received M'), and a model rebuilt "
            "from the "
            "file trains with other stacks than the script that saved it",
        )
    ]


def test_one_optimizer_or_two_schedules_pass() -> None:
    shared = SGD(ExponentialDecay())
    assert _found(shared, shared) == []
    assert _found(SGD(ExponentialDecay()), SGD(ExponentialDecay())) == []
    schedule = ExponentialDecay()
    assert _found(SGD(schedule), SGD(schedule), backend="tensorflow") == []
