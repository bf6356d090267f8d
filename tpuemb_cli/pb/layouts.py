"""TensorFlow's SparseCore layouts (protos/tpuemb_cli/pb/tpu/sparse_core_layout.proto), loaded
inside the same guard as tpuemb_cli/pb/__init__.py (runtime 5.28 warns about our pinned gencode),
and only when a layout is read or built: linting a config does not pay for them."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Protobuf gencode version", category=UserWarning)
    from tpuemb_cli.pb.tpu.sparse_core_layout_pb2 import (
        SparseCoreTableLayout,
        SparseCoreTableLayouts,
    )

__all__ = ["SparseCoreTableLayout", "SparseCoreTableLayouts"]
