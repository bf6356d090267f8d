"""torchrec-duplicate-table-name (TE841)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def table(name: str, rows: int = 64) -> str:
    return (
        f'tables {{ name: "{name}" kind: "bag" num_embeddings: {rows} embedding_dim: 8 '
        f'feature_names: "{name}_f" }}\n'
    )


def test_the_second_table_of_a_name() -> None:
    found = findings_of(table("a") + table("b") + table("a", 300) + "prepare {}")
    assert found == [
        (
            "TE841",
            ("tables", 2, "name"),
            "table `a` has the name of tables[0]: torchrec lays a stack out by table name, so "
            "one table's rows are read where the other's are (stack_tables refuses them with "
            "ValueError: 'Table names not found in tables list: set()')",
            "give each table its own name",
        )
    ]


def test_distinct_names() -> None:
    assert findings_of(table("a") + table("b") + "prepare {}") == []
