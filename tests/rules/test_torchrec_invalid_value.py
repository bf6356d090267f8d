"""torchrec-invalid-value (TE858) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'
KINDS = '"bag" (an EmbeddingBagConfig) or "sequence" (an EmbeddingConfig)'
POOLINGS = "TorchRec's PoolingType has SUM, MEAN and NONE only"
CALLS = "table_stacking's calls are stack_tables and auto_stack_tables"
COLLECTIONS = (
    "torchrec.experimental.torch_tpu's fused collections are SparseCoreFusedEmbeddingBagCollection "
    "and SparseCoreFusedEmbeddingCollection, and tpuemb reads it as the first"
)


def test_kinds_poolings_and_calls() -> None:
    text = (
        'tables { name: "a" kind: "seq" pooling: "sum" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "f" max_seq_len: 2 }\n'
        'tables { name: "b" kind: "bags" pooling: "MAX" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "g" }\n'
        'stack_calls { call: "stack_table" tables: "a" }\n'
        'stack_calls { call: "stack" tables: "b" }\n'
    )
    assert findings_of_rule("TE858", text) == [
        (
            ("tables", 0, "kind"),
            f'table `a` has kind "seq": a table is {KINDS}, and tpuemb reads it as a bag; did you '
            "mean `sequence`?",
            'write "sequence"',
        ),
        (
            ("tables", 0, "pooling"),
            f'table `a` has pooling "sum": {POOLINGS} (PoolingType["sum"] raises KeyError); did '
            "you mean `SUM`?",
            'write "SUM"',
        ),
        (
            ("tables", 1, "kind"),
            f'table `b` has kind "bags": a table is {KINDS}, and tpuemb reads it as a bag; did '
            "you mean `bag`?",
            'write "bag"',
        ),
        (
            ("tables", 1, "pooling"),
            f'table `b` has pooling "MAX": {POOLINGS} (PoolingType["MAX"] raises KeyError)',
            'write "SUM" or "MEAN" or "NONE"',
        ),
        (
            ("stack_calls", 0, "call"),
            f'stack call "stack_table": {CALLS}, and tpuemb reads it as stack_tables; did you mean '
            "`stack_tables`?",
            'write "stack_tables"',
        ),
        (
            ("stack_calls", 1, "call"),
            f'stack call "stack": {CALLS}, and tpuemb reads it as stack_tables',
            'write "stack_tables" or "auto_stack_tables"',
        ),
    ]


def test_collection_types() -> None:
    table = (
        'tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "f" }\n'
    )
    for written, meant in (
        ("EmbeddingBagCollection", "SparseCoreFusedEmbeddingBagCollection"),
        ("SparseCoreFusedEmbeddingColection", "SparseCoreFusedEmbeddingCollection"),
    ):
        text = table + f'collection {{ type: "{written}" batch_size: 8 {SGD} }}'
        assert findings_of_rule("TE858", text) == [
            (
                ("collection", "type"),
                f'collection type "{written}": {COLLECTIONS}; did you mean `{meant}`?',
                f'write "{meant}"',
            )
        ]


def test_the_names_torchrec_has_and_the_defaults() -> None:
    text = (
        'tables { name: "a" kind: "bag" pooling: "MEAN" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "f" }\n'
        'tables { name: "b" kind: "sequence" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "g" max_seq_len: 2 }\n'
        'tables { name: "c" kind: "bag" pooling: "NONE" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "h" }\n'
        'stack_calls { call: "auto_stack_tables" }\n'
        'stack_calls { call: "stack_tables" tables: "a" }\n'
    )
    assert findings_of_rule("TE858", text) == []
    for collection in (
        "SparseCoreFusedEmbeddingBagCollection",
        "SparseCoreFusedEmbeddingCollection",
    ):
        assert findings_of_rule("TE858", f'collection {{ type: "{collection}" }}') == []
    # Empty values are the defaults tpuemb reads (a bag, SUM, the bag collection, stack_tables).
    empty = 'tables { name: "a" num_embeddings: 64 embedding_dim: 8 }\ncollection { }\n'
    assert findings_of_rule("TE858", empty + "stack_calls { }") == []
