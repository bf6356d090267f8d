"""Python code generated from protos/ by `make generate` (never edit the _pb2 files by hand).

The gencode is pinned at protobuf 5.27.2 so that it loads on every runtime from 5.28 to 7.x.
Runtime 5.28.x warns on import that the gencode is older than itself ("Please avoid checked-in
Protobuf gencode that can be obsolete"); that is our deliberate choice, not the user's problem, so
the warning is silenced here -- for these imports only -- and the modules are loaded once.

These are the modules every config needs. The spec's (``pb/spec``), the graph's (``pb/framework``)
and the SparseCore layouts' (``pb/layouts.py``) are loaded inside the same guard by their own
package, when first imported: linting a config does not pay for them.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Protobuf gencode version", category=UserWarning)
    from tpuemb_cli.pb.xla import hlo_module_placeholder_pb2
    from tpuemb_cli.pb.tpu import optimization_parameters_pb2, tpu_embedding_configuration_pb2

__all__ = [
    "hlo_module_placeholder_pb2",
    "optimization_parameters_pb2",
    "tpu_embedding_configuration_pb2",
]
