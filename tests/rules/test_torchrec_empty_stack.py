"""torchrec-empty-stack (TE843)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of

TABLE = 'tables { name: "t" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "f" }\n'


def test_a_call_with_no_tables() -> None:
    assert findings_of(TABLE + 'stack_calls { call: "stack_tables" }\nprepare {}') == [
        (
            "TE843",
            ("stack_calls", 0),
            "stack_tables is called with no table names: it raises IndexError (list index out "
            "of range) before it stacks anything",
            "name the tables to stack, or drop the call",
        )
    ]
    assert findings_of(TABLE + 'stack_calls { call: "auto_stack_tables" }\nprepare {}') == []
