"""Writes this folder's TorchRec spec from torchrec's own objects, on CPU, and lints them with
tpuemb (``make test-torchrec``'s venv has both: ``build/venv-torchrec/bin/python
examples/torchrec/make_spec.py``).

A recommender's tables for torchrec 1.9.2's SparseCore fused collection
(``SparseCoreFusedEmbeddingBagCollection``) on 8 devices of 4 SparseCores, trained with Adagrad
and stacked automatically:

- ``recommender.torchrec.pbtxt``: ``user`` and ``item`` (64 wide, pooled by sum), ``country``
  (16 wide) and ``category`` (16 wide, pooled by mean).

``tpuemb explain examples/torchrec/recommender.torchrec.pbtxt`` shows the stacks torchrec makes of
them, ``tpuemb explain --memory --tpu v5p examples/torchrec/recommender.torchrec.pbtxt`` what each
device holds; ``tests/test_torchrec_oracle.py`` checks that the file is what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from google.protobuf import text_format

from tpuemb_cli.torchrec import lint_torchrec, spec_from_torchrec

HERE = Path(__file__).resolve().parent
SETTINGS: dict[str, Any] = {
    "collection": "bag",
    "optimizer_kwargs": {"lr": 0.05, "initial_accumulator_value": 0.1},
    "batch_size": 256,
    "global_device_count": 8,
    "num_sc_per_device": 4,
    "auto_stack": True,
}


def tables() -> list[Any]:
    from torchrec.experimental.torch_tpu.modules.embedding_configs import (
        SparseCoreEmbeddingConfig,
    )
    from torchrec.modules.embedding_configs import EmbeddingBagConfig, PoolingType

    def table(name: str, rows: int, dim: int, pooling: Any = PoolingType.SUM) -> Any:
        config = EmbeddingBagConfig(
            name=name,
            num_embeddings=rows,
            embedding_dim=dim,
            feature_names=[f"{name}_id"],
            pooling=pooling,
        )
        return SparseCoreEmbeddingConfig(config, max_ids_per_partition=512)

    return [
        table("user", 2_000_000, 64),
        table("item", 500_000, 64),
        table("country", 250, 16),
        table("category", 5_000, 16, PoolingType.MEAN),
    ]


def spec() -> Any:
    import torch

    return spec_from_torchrec(tables(), optimizer=torch.optim.Adagrad, **SETTINGS)


def main() -> int:
    import torch

    written = spec()
    header = "# proto-message: tpuemb.torchrec.TorchRecSpec\n"
    text = header + text_format.MessageToString(written)
    (HERE / "recommender.torchrec.pbtxt").write_text(text, encoding="utf-8")
    findings = lint_torchrec(tables(), optimizer=torch.optim.Adagrad, isolated=True, **SETTINGS)
    for finding in findings:
        print(finding, file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
