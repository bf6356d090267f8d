"""The SparseCore rules against TensorFlow 2.21 itself: for each rule, TensorFlow's own classes
build the configuration on CPU and accept or reject it as the rule's documentation says, and
`lint_tf` on the same live objects reports it. Needs TensorFlow (`make test-tf`); skipped
without it.

TPUEmbeddingV2 wants a TPUStrategy; on CPU a stand-in gives it what it reads from one -- the
replicas (`num_replicas_in_sync`) and the SparseCores per chip
(`extended.tpu_hardware_feature.num_embedding_devices_per_chip`). Everything after that is
TensorFlow's code: construction, table stacking, the layouts, gradient stacking and
`apply_gradients` up to the SparseCore op, which is replaced by a recorder (SparseCore ops have
no CPU kernels) so the test can see exactly which optimizer settings reach it.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

from tpuemb_cli.model.findings import Severity
from tpuemb_cli.spec.sparsecore import plan
from tpuemb_cli.spec.sparsecore_state import SLOTS
from tpuemb_cli.tf import lint_tf, spec_from_tf

tf = pytest.importorskip("tensorflow")

from tensorflow.python.distribute import tpu_strategy  # noqa: E402
from tensorflow.python.tpu import tpu_embedding_v3 as v3  # noqa: E402

E = tf.tpu.experimental.embedding
REPLICAS, SPARSE_CORES = 4, 4
# The same topology for tpuemb: 1 host x 4 cores, one core a replica.
TOPOLOGY: dict[str, Any] = {
    "num_hosts": 1,
    "cores_per_host": 4,
    "sparse_cores_per_chip": SPARSE_CORES,
}


class _StandIn(tpu_strategy.TPUStrategyV2):  # type: ignore[misc]
    """What TPUEmbeddingV2 reads from its TPUStrategy, and nothing else."""

    def __init__(self) -> None:  # no TPU to connect to: TPUStrategyV2.__init__ is not called
        feature = types.SimpleNamespace(num_embedding_devices_per_chip=SPARSE_CORES)
        self._stand_in = types.SimpleNamespace(tpu_hardware_feature=feature)

    @property
    def num_replicas_in_sync(self) -> int:
        return REPLICAS

    @property
    def extended(self) -> Any:
        return self._stand_in


@contextlib.contextmanager
def _on_stand_in() -> Iterator[None]:
    with mock.patch.object(v3.distribute_lib, "get_strategy", return_value=_StandIn()):
        yield


def build(features: Any, optimizer: Any, config: Any = None) -> Any:
    """TensorFlow's TPUEmbeddingV2 on the stand-in strategy."""
    with _on_stand_in():
        return v3.TPUEmbeddingV2(features, optimizer, sparse_core_embedding_config=config)


def sparsecore_findings(
    features: Any, optimizer: Any, config: Any = None, **topology: Any
) -> list[tuple[str, str]]:
    """(rule, field) of what lint_tf reports with the SparseCore rules, on the same objects."""
    findings = lint_tf(
        features,
        optimizer,
        sparse_core_config=config or E.SparseCoreEmbeddingConfig(),
        **(topology or TOPOLOGY),
    )
    return [(f.rule, f.field) for f in findings if f.rule.startswith("TE66")]


def table(**optimizer: Any) -> Any:
    return E.TableConfig(vocabulary_size=64, dim=8, name="t", **optimizer)


def feature(t: Any, **shape: Any) -> Any:
    return E.FeatureConfig(table=t, name="f", **shape)


# TE661 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sequence", [0, 5])
def test_te661_no_output_shape_fails_construction(sequence: int) -> None:
    features = [feature(table(), max_sequence_length=sequence)]
    with pytest.raises(ValueError, match=r"^Cannot iterate over a shape with unknown rank\.$"):
        build(features, E.SGD(0.1))
    topology = dict(TOPOLOGY, per_replica_batch_size=16)  # a batch size does not help either
    assert sparsecore_findings(features, E.SGD(0.1), **topology) == [("TE661", "features[0]")]


def test_te661_with_output_shape_builds_and_is_not_reported() -> None:
    features = [feature(table(), max_sequence_length=5, output_shape=[16, 5])]
    build(features, E.SGD(0.1))
    assert sparsecore_findings(features, E.SGD(0.1)) == []


# TE663 ------------------------------------------------------------------------------------------

REFUSED = (
    "weight_decay_factor and multiply_weight_decay_factor_by_learning_rate are not supported "
    "yet. But found in table t setting."
)


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ({"weight_decay_factor": 0.0}, "optimizer.weight_decay_factor"),
        (
            {"multiply_weight_decay_factor_by_learning_rate": False},
            "optimizer.multiply_weight_decay_factor_by_learning_rate",
        ),
    ],
)
def test_te663_any_weight_decay_value_is_refused(setting: dict[str, Any], field: str) -> None:
    features = [feature(table(), output_shape=[16])]
    optimizer = E.Adagrad(0.1, **setting)
    with pytest.raises(NotImplementedError) as raised:
        build(features, optimizer)
    assert str(raised.value) == REFUSED
    assert sparsecore_findings(features, optimizer) == [("TE663", field)]


def test_te663_an_unused_global_optimizer_is_not_checked() -> None:
    features = [feature(table(optimizer=E.SGD(0.1)), output_shape=[16])]
    decaying = E.SGD(0.1, weight_decay_factor=0.5)
    build(features, decaying)  # no table uses it: TensorFlow never looks at it
    assert sparsecore_findings(features, decaying) == []


# apply_gradients up to the SparseCore op --------------------------------------------------------

OPS = {
    "SGD": ("xla_sparse_dense_matmul_grad_with_sgd_and_static_buffer_size", ()),
    "Adagrad": (
        "xla_sparse_dense_matmul_grad_with_adagrad_and_static_buffer_size",
        ("accumulator",),
    ),
    "Adam": (
        "xla_sparse_dense_matmul_grad_with_adam_and_static_buffer_size",
        ("momenta", "velocity"),
    ),
    "FTRL": (
        "xla_sparse_dense_matmul_grad_with_ftrl_and_static_buffer_size",
        ("accumulator", "linear"),
    ),
}


def applied(optimizer: Any) -> dict[str, Any]:
    """The arguments TensorFlow's apply_gradients passes to the SparseCore op for ``optimizer``
    (tensors as numbers, the table's own state left out): what reaches the SparseCore."""
    emb = build([feature(table(), output_shape=[16])], optimizer)
    stack = next(iter(emb._stacked_table_to_tables))
    slots = {name: tf.Variable(tf.zeros([64, 8])) for name in optimizer._slot_names()}
    emb._variables = {stack: {"parameters": tf.Variable(tf.zeros([64, 8])), **slots}}
    emb._built = True
    name, state = next(v for k, v in OPS.items() if isinstance(optimizer, getattr(E, k)))
    calls: list[dict[str, Any]] = []

    def record(**kwargs: Any) -> Any:
        calls.append(kwargs)
        outputs = [kwargs["embedding_table"], *(kwargs[s] for s in state)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    partitioned = types.SimpleNamespace(
        row_pointers=None,
        sorted_sample_ids=None,
        sorted_token_ids=None,
        sorted_gains=None,
        num_minibatches_per_physical_sparse_core=1,
    )
    with mock.patch.object(v3.xla_ops, name, side_effect=record):
        emb.apply_gradients([tf.zeros([16, 8])], {stack: partitioned})
    (call,) = calls
    skip = {"embedding_table", "activation_gradients", *state}
    return {
        key: (value.numpy().item() if hasattr(value, "numpy") else value)
        for key, value in call.items()
        if key not in skip
    }


# TE662 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dropping", "plain", "field"),
    [
        (E.Adagrad(0.1, clipvalue=1.0), E.Adagrad(0.1), "optimizer.clipvalue"),
        (E.Adagrad(0.1, clip_weight_min=-2.0), E.Adagrad(0.1), "optimizer.clip_weight_min"),
        (E.Adagrad(0.1, clip_weight_max=2.0), E.Adagrad(0.1), "optimizer.clip_weight_max"),
        (
            E.SGD(0.1, use_gradient_accumulation=False),
            E.SGD(0.1),
            "optimizer.use_gradient_accumulation",
        ),
        (E.Adam(0.1, lazy_adam=False), E.Adam(0.1), "optimizer.adam.lazy_adam"),
        (
            E.SGD(0.1, low_dimensional_packing_status=True),
            E.SGD(0.1),
            "optimizer.low_dimensional_packing_status",
        ),
        (
            E.FTRL(0.1, allow_zero_accumulator=True),
            E.FTRL(0.1),
            "optimizer.ftrl.allow_zero_accumulator",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_te662_the_setting_never_reaches_the_sparsecore_op(
    dropping: Any, plain: Any, field: str
) -> None:
    assert applied(dropping) == applied(plain)
    features = [feature(table(), output_shape=[16])]
    assert sparsecore_findings(features, dropping) == [("TE662", field)]


def test_te662_what_does_reach_the_op_is_not_reported() -> None:
    # A setting that does reach the op changes what it receives: the comparison above can fail.
    assert applied(E.Adam(0.1, sum_inside_sqrt=False)) != applied(E.Adam(0.1))
    assert applied(E.FTRL(0.1, beta=0.5)) != applied(E.FTRL(0.1))
    features = [feature(table(), output_shape=[16])]
    assert sparsecore_findings(features, E.Adam(0.1, sum_inside_sqrt=False)) == []


# TE664 ------------------------------------------------------------------------------------------


def _custom() -> Any:
    return E.CustomOptimizer(
        custom_computation=tf.function(lambda g, t, s, lr, h: t - g * lr), learning_rate=0.1
    )


def test_te664_custom_optimizer_builds_then_fails_at_the_first_step() -> None:
    features = [feature(table(), output_shape=[16])]
    optimizer = _custom()
    emb = build(features, optimizer)
    stack = next(iter(emb._stacked_table_to_tables))
    emb._variables = {stack: {"parameters": tf.Variable(tf.zeros([64, 8]))}}
    emb._built = True
    partitioned = types.SimpleNamespace(num_minibatches_per_physical_sparse_core=1)
    with pytest.raises(ValueError, match=r"^Unsupported optimizer in minibatching mode\.$"):
        emb.apply_gradients([tf.zeros([16, 8])], {stack: partitioned})
    assert sparsecore_findings(features, optimizer) == [("TE664", "optimizer.custom")]
    spec = spec_from_tf(features, optimizer, **TOPOLOGY)
    assert (spec.optimizer.custom.type, spec.optimizer.use_gradient_accumulation) == (
        "CustomOptimizer",
        False,
    )


def test_te664_a_subclass_of_a_supported_optimizer_is_supported() -> None:
    class WarmAdam(E.Adam):  # type: ignore[misc,name-defined]
        pass

    # TensorFlow dispatches by isinstance: the Adam op receives it.
    assert applied(WarmAdam(0.1)) == applied(E.Adam(0.1))
    features = [feature(table(), output_shape=[16])]
    assert sparsecore_findings(features, WarmAdam(0.1)) == []
    assert spec_from_tf(features, WarmAdam(0.1), **TOPOLOGY).optimizer.HasField("adam")


# TE665 and TE666: what TensorFlow computes from output_shape ------------------------------------


def layout(output_shape: list[int]) -> Any:
    emb = build([feature(table(), output_shape=output_shape)], E.SGD(0.1))
    return emb, emb.embedding_layouts["t"]


def test_te665_a_global_batch_is_planned_on_every_replica() -> None:
    per_replica = 16
    _, mine = layout([per_replica])
    _, global_ = layout([per_replica * REPLICAS])
    assert (mine.per_sparse_core_batch_size, global_.per_sparse_core_batch_size) == (4, 16)
    topology = dict(TOPOLOGY, per_replica_batch_size=per_replica)
    features = [feature(table(), output_shape=[per_replica * REPLICAS])]
    assert sparsecore_findings(features, E.SGD(0.1), **topology) == [
        ("TE665", "features[0].output_shape[0]")
    ]
    features = [feature(table(), output_shape=[per_replica])]
    assert sparsecore_findings(features, E.SGD(0.1), **topology) == []


def test_te666_samples_that_do_not_divide_are_rounded_down() -> None:
    emb, six = layout([6])
    # 6 samples on 4 SparseCores: the layout records 1 a SparseCore, and TensorFlow's gradient
    # stacking keeps 4 of the 6 gradient rows.
    assert (emb._table_to_sample_count["t"], six.per_sparse_core_batch_size) == (6, 1)
    assert emb._stack_gradients([tf.ones([6, 8])])["t"].shape == (4, 8)
    features = [feature(table(), output_shape=[6])]
    assert sparsecore_findings(features, E.SGD(0.1)) == [("TE666", "features[0].output_shape")]
    emb, eight = layout([8])
    assert eight.per_sparse_core_batch_size == 2
    assert emb._stack_gradients([tf.ones([8, 8])])["t"].shape == (8, 8)
    assert sparsecore_findings([feature(table(), output_shape=[8])], E.SGD(0.1)) == []


# TE652 and TE653: on the stacks TensorFlow builds ------------------------------------------------


def two_tables() -> list[Any]:
    """`user` and `item` share a width and an optimizer: one stack, `item_user`."""
    user = E.TableConfig(vocabulary_size=1024, dim=16, name="user")
    item = E.TableConfig(vocabulary_size=4096, dim=16, name="item")
    return [
        E.FeatureConfig(table=user, name="user_id", output_shape=[16]),
        E.FeatureConfig(table=item, name="item_id", output_shape=[16]),
    ]


def rule_findings(code: str, features: Any, config: Any) -> list[str]:
    """The fields lint_tf reports ``code`` at, on the same objects."""
    findings = lint_tf(features, E.Adagrad(0.1), sparse_core_config=config, **TOPOLOGY)
    return [f.field for f in findings if f.rule == code]


def test_te652_a_table_name_key_leaves_the_stack_at_the_default() -> None:
    assert v3.TPUEmbeddingV2.DEFAULT_MAX_IDS_PER_TABLE == 256
    assert v3.TPUEmbeddingV2.DEFAULT_MAX_UNIQUE_IDS_PER_TABLE == 256
    by_table = E.SparseCoreEmbeddingConfig(
        max_ids_per_table={"user": 1024}, max_unique_ids_per_table={"item": 512}
    )
    emb = build(two_tables(), E.Adagrad(0.1), by_table)
    assert list(emb._stacked_table_to_tables) == ["item_user"]
    assert emb._table_to_max_ids_per_sparse_core == {"item_user": 256}
    assert emb._table_to_max_unique_ids_per_sparse_core == {"item_user": 256}
    assert rule_findings("TE652", two_tables(), by_table) == [
        "sparse_core.max_ids_per_table.user",
        "sparse_core.max_unique_ids_per_table.item",
    ]
    by_stack = E.SparseCoreEmbeddingConfig(
        max_ids_per_table={"item_user": 1024}, max_unique_ids_per_table={"item_user": 512}
    )
    emb = build(two_tables(), E.Adagrad(0.1), by_stack)
    assert emb._table_to_max_ids_per_sparse_core == {"item_user": 1024}
    assert emb._table_to_max_unique_ids_per_sparse_core == {"item_user": 512}
    assert rule_findings("TE652", two_tables(), by_stack) == []


def test_te652_without_stacking_table_names_are_the_keys() -> None:
    config = E.SparseCoreEmbeddingConfig(
        disable_table_stacking=True, max_ids_per_table={"user": 1024, "item": 64}
    )
    emb = build(two_tables(), E.Adagrad(0.1), config)
    assert emb._table_to_max_ids_per_sparse_core == {"item": 64, "user": 1024}
    assert rule_findings("TE652", two_tables(), config) == []


def test_te653_the_padded_shape_and_the_slots_are_tensorflows() -> None:
    # 16 SparseCores: 64 rows are padded to 128, dim 12 to 16 -- 62.5% padding; 4096 x 16 none.
    small = E.TableConfig(vocabulary_size=64, dim=12, name="small")
    large = E.TableConfig(vocabulary_size=4096, dim=16, name="large")
    features = [
        E.FeatureConfig(table=small, name="s", output_shape=[16]),
        E.FeatureConfig(table=large, name="l", output_shape=[16]),
    ]
    config = E.SparseCoreEmbeddingConfig()
    emb = build(features, E.Adagrad(0.1), config)
    padded = {
        name: (table.vocabulary_size, table.dim) for name, table in emb._table_name_to_table.items()
    }
    assert padded == {"small": (128, 16), "large": (4096, 16)}
    spec = spec_from_tf(features, E.Adagrad(0.1), sparse_core_config=config, **TOPOLOGY)
    assert {name: t.padded_shape for name, t in plan(spec).tables.items()} == padded
    assert rule_findings("TE653", features, config) == ["tables[0]"]
    # The slot variables TensorFlow creates beside each stacked table, per optimizer.
    classes = {
        "sgd": E.SGD,
        "adagrad": E.Adagrad,
        "adagrad_momentum": E.AdagradMomentum,
        "adam": E.Adam,
        "ftrl": E.FTRL,
    }
    assert {name: tuple(cls()._slot_names()) for name, cls in classes.items()} == SLOTS


# spec_from_tf: the SparseCoreEmbeddingConfig ----------------------------------------------------


def test_spec_from_tf_carries_the_sparse_core_config() -> None:
    config = E.SparseCoreEmbeddingConfig(
        disable_table_stacking=True,
        max_ids_per_chip_per_sample=128,
        max_ids_per_table={"t": 512},
        max_unique_ids_per_table={"t": 256},
        allow_id_dropping=True,
    )
    features = {"b": feature(table(), output_shape=[16])}
    spec = spec_from_tf(
        features,
        E.SGD(0.1),
        sparse_core_config=config,
        num_hosts=1,
        cores_per_host=4,
        accelerator="v5p",
    )
    assert spec.HasField("sparse_core")
    sc = spec.sparse_core
    assert (sc.disable_table_stacking, sc.max_ids_per_chip_per_sample, sc.allow_id_dropping) == (
        True,
        128,
        True,
    )
    assert (dict(sc.max_ids_per_table), dict(sc.max_unique_ids_per_table)) == (
        {"t": 512},
        {"t": 256},
    )
    assert not sc.HasField("initialize_tables_on_host")  # TensorFlow's default, not written
    assert (spec.topology.accelerator, spec.topology.HasField("sparse_cores_per_chip")) == (
        "v5p",
        False,
    )
    assert [f.key for f in spec.features] == ["b"]
    # TensorFlow accepts the same objects.
    build(features, E.SGD(0.1), config)


def test_lint_tf_without_a_sparse_core_config_is_tpu_embedding() -> None:
    features = [feature(table(), max_sequence_length=5)]
    findings = lint_tf(
        features, E.SGD(0.1), num_hosts=1, cores_per_host=4, per_replica_batch_size=8
    )
    assert findings == []


# Duplicate table names from live objects --------------------------------------------------------

DUPLICATE = "Tables must have a unique name. Multiple tables with name same found."


def _two_tables_named_same() -> list[Any]:
    first = E.TableConfig(vocabulary_size=64, dim=8, name="same")
    second = E.TableConfig(vocabulary_size=128, dim=8, name="same")
    return [
        E.FeatureConfig(table=first, name="f", output_shape=[16]),
        E.FeatureConfig(table=second, name="g", output_shape=[16]),
    ]


def test_two_tables_named_alike_are_refused_by_tpu_embedding_v2_and_by_lint_tf() -> None:
    features = _two_tables_named_same()
    with pytest.raises(ValueError) as raised:
        build(features, E.SGD(0.1))
    assert str(raised.value) == DUPLICATE
    findings = lint_tf(
        features, E.SGD(0.1), sparse_core_config=E.SparseCoreEmbeddingConfig(), **TOPOLOGY
    )
    errors = [(f.rule, f.field) for f in findings if f.severity is Severity.ERROR]
    assert errors == [("TE702", "tables[1].name")]
    (finding,) = [f for f in findings if f.rule == "TE702"]
    assert finding.message.endswith(f"(ValueError: {DUPLICATE})")
    # Both tables are kept: the second feature is not pointed at the first table.
    spec = spec_from_tf(
        features, E.SGD(0.1), sparse_core_config=E.SparseCoreEmbeddingConfig(), **TOPOLOGY
    )
    assert [(t.name, t.vocabulary_size) for t in spec.tables] == [("same", 64), ("same", 128)]
    assert [f.table for f in spec.features] == ["#0", "#1"]


def test_two_tables_named_alike_are_refused_by_every_mid_level_class() -> None:
    # TPUEmbedding (TensorCore) checks in its own __init__, TPUEmbeddingV0 and
    # TPUEmbeddingForServing in TPUEmbeddingBase's (as TPUEmbeddingV2): before any strategy is
    # looked at, so on CPU as on TPU.
    from tensorflow.python.tpu import tpu_embedding_v1, tpu_embedding_v2

    for cls in (
        tpu_embedding_v2.TPUEmbedding,
        tpu_embedding_v1.TPUEmbeddingV0,
        E.TPUEmbeddingForServing,
    ):
        with pytest.raises(ValueError) as raised:
            cls(_two_tables_named_same(), E.SGD(0.1))
        assert str(raised.value) == DUPLICATE, cls
    findings = lint_tf(_two_tables_named_same(), E.SGD(0.1), num_hosts=1, cores_per_host=4)
    assert [(f.rule, f.field) for f in findings if f.severity is Severity.ERROR] == [
        ("TE702", "tables[1].name")
    ]
