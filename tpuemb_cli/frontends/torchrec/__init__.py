"""TorchRec on TPU SparseCores (torchrec 1.9.2, ``torchrec.experimental.torch_tpu``): its
SparseCoreEmbeddingConfigs, the stacks ``table_stacking`` makes of them and the fused collection
that holds them, as a TorchRecSpec (live objects through ``tpuemb_cli.torchrec``, or a file); and
PyTorch distributed checkpoints saved by its ``SparseCoreSavePlanner``."""

from __future__ import annotations

from tpuemb_cli.frontends import FrontEnd
from tpuemb_cli.model.message_type import MessageType

FRONT_END = FrontEnd(
    name="torchrec",
    title="TorchRec",
    kinds=("torchrec",),
    engine="tpuemb_cli.frontends.torchrec.engine",
    views="tpuemb_cli.frontends.torchrec.views",
    compat="tpuemb_cli.frontends.torchrec.compat",
    rules="tpuemb_cli.frontends.torchrec.rules",
    api="tpuemb_cli.frontends.torchrec.api",
    checkpoints="tpuemb_cli.frontends.torchrec.load.dcp",
    statistics="tpuemb_cli.frontends.torchrec.load.fdo_csv",
    checkpoints_help="a PyTorch distributed checkpoint (its folder, or its .metadata) for a "
    "TorchRec spec",
    types=(
        # TorchRec has no file of its own: a TorchRecSpec is what `spec_from_torchrec` writes of
        # the live objects. Its `tables` are a spec's field too; `collection`, `stack_calls`,
        # `prepare` and `stacks` are its own, and one of them tells it apart.
        MessageType(
            "TorchRecSpec",
            "tpuemb_cli.frontends.torchrec.pb",
            "torchrec",
            packages=("tpuemb.torchrec",),
            signature=frozenset({"collection", "stack_calls", "prepare", "stacks"}),
            text_order=6,
            mapping_order=5,
            text_leads=("collection", "stack_calls", "prepare"),
        ),
    ),
)
