"""Which jax-tpu-embedding release the JAX oracle tests run against, and its proto as 0.1.0 writes
it: `make test-jax` (Python 3.11) installs 0.1.0, `make test-jax-next` (Python 3.12) 0.2.0.

0.2.0's `create_proto_from_feature_specs` writes what 0.1.0's does and three fields more (its
`embedding_proto_utils.py`): each stack's `activation_mem_bytes_limit` and each table's `combiner`
and `optimizer`. `tpuemb compile --target jax` writes 0.1.0's proto, so under 0.2.0 the oracle
tests compare it with the library's minus those three fields, and check the fields apart."""

from __future__ import annotations

import importlib.metadata
from typing import Any

VERSION = importlib.metadata.version("jax-tpu-embedding")

# The fields 0.2.0 adds to what create_proto_from_feature_specs writes, by message.
STACK_FIELDS_020 = ("activation_mem_bytes_limit",)
TABLE_FIELDS_020 = ("combiner", "optimizer")
# embedding_spec.DEFAULT_ACTIVATION_MEM_BYTES_LIMIT (0.2.0): what every stack records unless the
# script gives stack_tables or auto_stack_tables another limit.
DEFAULT_ACTIVATION_MEM_BYTES_LIMIT = 2048 * 1024


def records_training(proto: Any) -> bool:
    """Whether ``proto``'s schema is 0.2.0's (a stack's activation limit, a table's optimizer)."""
    stack = proto.DESCRIPTOR.fields_by_name["stacked_table_specs"].message_type
    return "activation_mem_bytes_limit" in stack.fields_by_name


def as_010(proto: Any) -> Any:
    """A copy of the library's ``proto`` without the fields 0.1.0 does not write (``proto``
    itself under 0.1.0)."""
    if not records_training(proto):
        return proto
    copy = type(proto)()
    copy.CopyFrom(proto)
    for stack in copy.stacked_table_specs:
        for name in STACK_FIELDS_020:
            stack.ClearField(name)
        for table in stack.table_specs:
            for name in TABLE_FIELDS_020:
                table.ClearField(name)
    return copy
