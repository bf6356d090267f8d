"""torchrec-stack-topology-mismatch (TE856) on TorchRec specs (the numbers are those measured on
CPU with torchrec 1.9.2's stacking and collection)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'


def tables(rows: int, count: int = 2) -> str:
    return "".join(
        f'tables {{ name: "{name}" kind: "bag" num_embeddings: {rows} embedding_dim: 8 '
        f'feature_names: "f{name}" }}\n'
        for name in "ab"[:count]
    )


def collection(devices: int, per_device: int) -> str:
    return (
        f"collection {{ batch_size: 8 global_device_count: {devices} "
        f"num_sc_per_device: {per_device} {SGD} }}"
    )


def test_a_stack_the_collection_cannot_shard() -> None:
    text = (
        tables(8)
        + 'stack_calls { call: "stack_tables" tables: "a" tables: "b" name: "s" }\n'
        + collection(4, 8)
    )
    assert findings_of_rule("TE856", text) == [
        (
            ("stack_calls", 0),
            "stack `s` was laid out by stack_calls[0] (stack_tables) for 1 device(s) x 2 "
            "SparseCores (the call's defaults), but the collection runs on 4 x 8: it keeps the "
            "stack and shards its weight for its own SparseCores, and raises RuntimeError at "
            "construction (\"shape '[8, 0, 8]' is invalid for input of size 32\")",
            "give the stack call global_device_count 4 and num_sc_per_device 8, as the "
            "collection's",
        )
    ]


def test_rows_read_from_the_wrong_place() -> None:
    explicit = (
        tables(32) + 'stack_calls { call: "stack_tables" tables: "a" tables: "b" name: "s" '
        "global_device_count: 2 num_sc_per_device: 2 }\n" + collection(1, 2)
    )
    assert findings_of_rule("TE856", explicit) == [
        (
            ("stack_calls", 0),
            "stack `s` was laid out by stack_calls[0] (stack_tables) for 2 device(s) x 2 "
            "SparseCores, but the collection runs on 1 x 2: it keeps the stack and shards its "
            "weight for its own SparseCores, and table `b`, at row 16 of each SparseCore in the "
            "weight, is looked up and saved from row 8 (the stack's row offset): rows that are "
            "not its own, without an error",
            "give the stack call global_device_count 1 and num_sc_per_device 2, as the "
            "collection's",
        )
    ]
    auto = tables(32) + 'stack_calls { call: "auto_stack_tables" }\n' + collection(1, 4)
    assert findings_of_rule("TE856", auto) == [
        (
            ("stack_calls", 0),
            "stack `a_b` was laid out by stack_calls[0] (auto_stack_tables) for 1 device(s) x 2 "
            "SparseCores (the call's defaults), but the collection runs on 1 x 4: it keeps the "
            "stack and shards its weight for its own SparseCores, and table `b`, at row 8 of each "
            "SparseCore in the weight, is looked up and saved from row 16 (the stack's row "
            "offset): rows that are not its own, without an error",
            "give the stack call global_device_count 1 and num_sc_per_device 4, as the "
            "collection's",
        )
    ]


def test_layouts_that_agree() -> None:
    call = 'stack_calls { call: "stack_tables" tables: "a" tables: "b" %s}\n'
    # The same topology, and the collection's defaults against the call's.
    same = "global_device_count: 2 num_sc_per_device: 4 "
    assert findings_of_rule("TE856", tables(32) + call % same + collection(2, 4)) == []
    assert findings_of_rule("TE856", tables(32) + call % "" + f"collection {{ {SGD} }}") == []
    # As many SparseCores, otherwise split: the offsets are the same (round trip checked on CPU).
    other = "global_device_count: 2 num_sc_per_device: 2 "
    assert findings_of_rule("TE856", tables(32) + call % other + collection(1, 4)) == []
    # One table: at row 0, wherever it is laid out.
    one = tables(32, 1) + 'stack_calls { call: "stack_tables" tables: "a" }\n' + collection(1, 4)
    assert findings_of_rule("TE856", one) == []
    # No collection: nothing shards the stack.
    assert (
        findings_of_rule("TE856", tables(8) + call % "" + "prepare { num_sc_per_device: 8 }") == []
    )
