"""torchrec-table-kind-mismatch (TE853) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'
BAGS = f"collection {{ batch_size: 8 {SGD} }}"  # the default type: the bag collection
SEQUENCES = f'collection {{ type: "SparseCoreFusedEmbeddingCollection" batch_size: 8 {SGD} }}'
SEQUENCE_A = (
    'tables { name: "a" kind: "sequence" num_embeddings: 64 embedding_dim: 8 feature_names: "fa" '
    "max_seq_len: 4 }\n"
)


def bag_b(extra: str = "") -> str:
    return (
        'tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb" '
        f"{extra}}}\n"
    )


def test_a_sequence_table_in_the_bag_collection() -> None:
    assert findings_of_rule("TE853", SEQUENCE_A + bag_b() + BAGS) == [
        (
            ("tables", 0, "kind"),
            "table `a` is a sequence table (EmbeddingConfig) in a "
            "SparseCoreFusedEmbeddingBagCollection: the collection stacks it and builds its "
            "weight, embedding_bag_configs() leaves it out, and forward returns its features "
            "pooled, batch_size rows each (one a sample) instead of batch_size x max_seq_len 4",
            "make `a` a bag table (EmbeddingBagConfig), or give the sequence tables a "
            "SparseCoreFusedEmbeddingCollection",
        )
    ]


FIX_B = (
    "make `b` a sequence table (EmbeddingConfig with max_seq_len), or give the bag tables a "
    "SparseCoreFusedEmbeddingBagCollection"
)
IN_SEQUENCES = (
    "table `b` is a bag table (EmbeddingBagConfig) in a SparseCoreFusedEmbeddingCollection: the "
    "collection stacks it and builds its weight, embedding_configs() leaves it out, and it "
)


def test_a_bag_table_in_the_sequence_collection() -> None:
    assert findings_of_rule("TE853", bag_b() + SEQUENCE_A + SEQUENCES) == [
        (
            ("tables", 0, "kind"),
            IN_SEQUENCES + "raises ValueError at forward and in stack_gradients, after the "
            'lookups ran: "max_seq_len must be specified for sequence table b" (its stack, a bag '
            "table's)",
            FIX_B,
        )
    ]
    # A bag table given a max_seq_len: read as a sequence of that many ids.
    assert findings_of_rule("TE853", bag_b("max_seq_len: 3 ") + SEQUENCES) == [
        (
            ("tables", 0, "kind"),
            IN_SEQUENCES + "reads stack `b` as sequences of max_seq_len 3 ids a sample, its "
            "pooling ignored",
            FIX_B,
        )
    ]


def test_each_kind_in_its_own_collection_and_no_collection() -> None:
    assert findings_of_rule("TE853", bag_b() + BAGS) == []
    assert findings_of_rule("TE853", SEQUENCE_A + SEQUENCES) == []
    assert findings_of_rule("TE853", SEQUENCE_A + bag_b()) == []


def test_none_where_torchrec_refuses_first() -> None:
    # A sequence table without max_seq_len: stack_tables refuses it before any lookup.
    bare = (
        'tables { name: "a" kind: "sequence" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "fa" }\n'
    )
    assert findings_of_rule("TE853", bare + BAGS) == []
