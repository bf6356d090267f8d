"""jax-batch-mismatch on specs made from stand-in objects and on an EmbeddingSpecProto
(tests/test_jax_front_oracle_stacking.py holds it against the library's preprocessing)."""

from __future__ import annotations

from tests.jax_objects import FeatureSpec, TableSpec
from tpuemb_cli.engine import Engine
from tpuemb_cli.jax import lint_jax
from tpuemb_cli.load import load_bytes


def test_a_sequence_written_as_rows() -> None:
    feature = FeatureSpec("watched", TableSpec("history"), (256, 20), (5120, 16))
    (finding,) = lint_jax([feature], global_device_count=1, num_sc_per_device=2)
    assert (finding.rule, finding.path) == ("TE679", ("features", 0, "output_shape"))
    assert finding.message.startswith(
        'feature "watched" has input_shape [256, 20] and output_shape [5120, 16]: the library '
        "lays out 5,120 rows for it"
    )


def test_an_embedding_spec_proto() -> None:
    text = b"""
stacked_table_specs {
  stack_name: "t" stack_vocab_size: 1024 stack_embedding_dim: 16 total_sample_count: 384
  max_ids_per_partition: 256 max_unique_ids_per_partition: 256 num_sparsecores: 8
  table_specs {
    table_name: "t" vocab_size: 1000 embedding_dim: 16 padded_vocab_size: 1024
    padded_embedding_dim: 16
    feature_specs { feature_name: "f" input_shape: [128, 3] output_shape: [128, 3, 16] }
  }
}
"""
    document = load_bytes(text, "s.pbtxt", "text", "EmbeddingSpecProto")
    found = [f for f in Engine().lint(document) if f.rule == "TE679"]
    assert [f.path for f in found] == [
        ("stacked_table_specs", 0, "table_specs", 0, "feature_specs", 0, "output_shape")
    ]
