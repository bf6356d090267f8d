"""What a stacked SparseCore table holds in HBM: the parameters and one array per slot variable
of its optimizer, each as large as the stack's padded shape, in float32.

``TPUEmbeddingV2._create_variables`` (tensorflow/python/tpu/tpu_embedding_v3.py) creates the
stacked table's ``parameters`` with shape (sum of the members' padded vocabularies, padded width)
and dtype float32, and ``optimizer._create_slots`` one variable of that same shape per name of the
optimizer's ``_slot_names()`` (tensorflow/python/tpu/tpu_embedding_v2_utils.py). A combiner's
slot (one value per row, replicated) is not counted: it is not padded with the table.
"""

from __future__ import annotations

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.optimizers import FLOAT_BYTES
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer

# The spec's optimizer oneof -> ``_slot_names()`` of the class TPUEmbeddingV2 receives: a view of
# the optimizer table (tests/test_tf_sparsecore_rules.py compares it with TensorFlow's classes).
SLOTS: dict[str, tuple[str, ...]] = {row.spec: row.slots for row in optimizers.optimizers()}


def slot_names(optimizer: Optimizer) -> tuple[str, ...]:
    """The slot variables TensorFlow creates beside a table's parameters (an optimizer with no
    SparseCore update has none here: TE664 reports it)."""
    row = optimizers.of_spec(optimizer.WhichOneof("algorithm"))
    return row.slots if row is not None else ()


def state_bytes(shape: tuple[int, int], optimizer: Optimizer) -> int:
    """The bytes the parameters and slots of ``shape`` (rows, width) take."""
    rows, width = shape
    return rows * width * FLOAT_BYTES * (1 + len(slot_names(optimizer)))
