"""torchrec-unknown-stack-table (TE842)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of

TABLES = "".join(
    f'tables {{ name: "{n}" kind: "bag" num_embeddings: 64 embedding_dim: 8 '
    f'feature_names: "{n}" }}\n'
    for n in ("user", "item")
)


def codes(call: str) -> list[tuple[object, ...]]:
    return [(rule, path, fix) for rule, path, _, fix in findings_of(TABLES + call + "prepare {}")]


def test_a_name_no_table_has() -> None:
    assert codes('stack_calls { call: "stack_tables" tables: ["user", "iten"] }') == [
        ("TE842", ("stack_calls", 0, "tables", 1), "use 'item'")
    ]


def test_a_name_twice_and_a_bare_string() -> None:
    assert codes('stack_calls { call: "stack_tables" tables: ["user", "user"] }') == [
        ("TE842", ("stack_calls", 0, "tables", 1), "name each table once")
    ]
    found = findings_of(
        TABLES + 'stack_calls { call: "stack_tables" tables: "user" tables_string: true }'
    )
    assert found == [
        (
            "TE842",
            ("stack_calls", 0, "tables"),
            "table_names is the string 'user', not a list: stack_tables tests each table's name "
            "as a substring of it and raises ValueError naming its letters as tables not found",
            "pass ['user']",
        )
    ]


def test_known_names() -> None:
    assert codes('stack_calls { call: "stack_tables" tables: ["user", "item"] }') == []
