"""torchrec-excess-padding (TE846)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def test_a_narrow_table_padded_to_its_stacks_width() -> None:
    found = findings_of(
        'tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 64 feature_names: "a" }\n'
        'tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 4 feature_names: "b" }\n'
        'stack_calls { call: "stack_tables" tables: ["a", "b"] }\nprepare {}'
    )
    # b pads from 8 to 64 columns over its 64 rows (one device of 2 SparseCores: 64 rows).
    assert found == [
        (
            "TE846",
            ("tables", 1, "embedding_dim"),
            "stack `a_b` pads table `b` to its widest table's 64 columns: 3,584 values of "
            "padding, stored on the devices with the optimizer's state",
            "stack tables of one padded width together",
        )
    ]
