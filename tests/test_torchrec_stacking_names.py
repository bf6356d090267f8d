"""Two tables of one name in a stack, as torchrec 1.9.2's ``stack_tables`` lays them out: its
per-stack dicts are keyed by table name, so the later table's padded vocabulary, row offset and
rotation stand for both, and the stack counts that vocabulary twice. The numbers are the
library's own for the oracle cases ``dup_names_prepare`` and ``dup_names_module``
(tests/torchrec_cases.py; NOTES-torchrec.md, "dup-names-prepare"), which
tests/test_torchrec_oracle.py compares with torchrec on CPU."""

from __future__ import annotations

from tpuemb_cli.frontends.torchrec.pb import TorchRecSpec
from tpuemb_cli.frontends.torchrec.spec.memory import model
from tpuemb_cli.frontends.torchrec.spec.stacking import stack


def _two_tables_named_a() -> TorchRecSpec:
    spec = TorchRecSpec()
    for vocab, feature in ((16, "f_a"), (32, "f2")):
        table = spec.tables.add(name="a", kind="bag", num_embeddings=vocab, embedding_dim=8)
        table.feature_names.append(feature)
        table.pooling = "SUM"
    spec.collection.type = "SparseCoreFusedEmbeddingBagCollection"
    spec.collection.optimizer.type = "SGD"
    spec.collection.batch_size = 8
    return spec


def test_tables_of_one_name_share_the_later_tables_layout() -> None:
    spec = _two_tables_named_a()
    stacking = stack(spec)
    assert stacking.refusal is None
    (made,) = stacking.stacks
    written = made.to_dict(spec)
    assert written["stack_num_embeddings"] == 64  # 2 x 32, not 16 + 32
    assert written["padded_vocab_sizes"] == {"a": 32}
    assert written["row_offsets_in_shard"] == {"a": 16}
    assert [(t["padded_vocab_size"], t["row_offset_in_shard"]) for t in written["tables"]] == [
        (32, 16),
        (32, 16),
    ]
    memory = model(spec, stacking)
    assert memory is not None
    assert [(s.rows_per_device, s.width) for s in memory.stacks] == [(64, 8)]
