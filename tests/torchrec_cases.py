"""Deterministic cases for the TorchRec (torchrec 1.9.2 ``torchrec.experimental.torch_tpu``)
oracle: plain JSON-able dicts, no torch. tests/torchrec_library.py runs them with torchrec's own
code; tpuemb's TorchRec front-end is to be compared against what it reports.

A case::

    {"id": str, "note": str (what it shows),
     "tables": [{"name", "kind": "bag"|"seq", "num_embeddings", "embedding_dim", "feature_names",
                 "pooling": "SUM"|"MEAN"|None (None on a bag table = the config's default, SUM),
                 "max_seq_len": int|None, "max_ids_per_partition" (256),
                 "max_unique_ids_per_partition" (256), "suggested_coo_buffer_size_per_device",
                 "stack_table_name": str|None,
                 "weight_init_min", "weight_init_max": float (optional, passed to torchrec's
                 config; without them the config computes +-sqrt(1 / num_embeddings))}],
     "stack_calls": [{"call": "stack_tables"|"auto_stack_tables", "tables": [str] | str
                      (stack_tables only; passed as given, so a bare string is a bare string),
                      "name", "rotation", "fail_on_excess_padding", "global_device_count",
                      "num_sc_per_device", "batch_size", "activation_mem_bytes_limit",
                      "use_short_names"}],      # made in order, on the same table objects
     "module": None | {"collection": "bag"|"sequence", "optimizer": a torch.optim class name
                       (a name torch.optim lacks is passed to the library as the bare string),
                       "optimizer_kwargs": dict|None, "batch_size", "global_device_count",
                       "num_sc_per_device", "auto_stack", "activation_mem_bytes_limit"},
     "prepare": {"global_device_count", "num_sc_per_device"}   # when module is None
     "preprocessor": bool (optional: also build SparseCoreInputPreprocessor, report its
                     metadata)}

A key left out of a stack call or module takes the library's default (stack_tables /
auto_stack_tables: global_device_count=1, num_sc_per_device=2, batch_size=1; the collections:
batch_size=1, global_device_count=1, num_sc_per_device=2, auto_stack=False,
activation_mem_bytes_limit=6 MiB).
"""

from __future__ import annotations

import random
from typing import Any

SEED = 20261129


def bag(
    name: str,
    vocab: int,
    dim: int,
    features: list[str] | None = None,
    pooling: str | None = "SUM",
    **extra: Any,
) -> dict[str, Any]:
    t: dict[str, Any] = {
        "name": name,
        "kind": "bag",
        "num_embeddings": vocab,
        "embedding_dim": dim,
        "feature_names": features if features is not None else [f"f_{name}"],
        "pooling": pooling,
        "max_seq_len": None,
        "max_ids_per_partition": 256,
        "max_unique_ids_per_partition": 256,
        "suggested_coo_buffer_size_per_device": None,
        "stack_table_name": None,
    }
    t.update(extra)
    return t


def seq(
    name: str,
    vocab: int,
    dim: int,
    max_seq_len: int | None,
    features: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    t = bag(name, vocab, dim, features, pooling=None, **extra)
    t["kind"] = "seq"
    t["max_seq_len"] = max_seq_len
    return t


def stack(tables: list[str] | str, **kw: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"call": "stack_tables", "tables": tables}
    call.update(kw)
    return call


def auto(**kw: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"call": "auto_stack_tables"}
    call.update(kw)
    return call


def module(
    collection: str = "bag",
    optimizer: str = "SGD",
    optimizer_kwargs: dict[str, Any] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    m: dict[str, Any] = {
        "collection": collection,
        "optimizer": optimizer,
        "optimizer_kwargs": optimizer_kwargs if optimizer_kwargs is not None else {"lr": 0.1},
        "batch_size": 8,
        "global_device_count": 1,
        "num_sc_per_device": 2,
        "auto_stack": False,
        "activation_mem_bytes_limit": None,
    }
    m.update(kw)
    return m


def case(
    id_: str,
    note: str,
    tables: list[dict[str, Any]],
    stack_calls: list[dict[str, Any]] | None = None,
    mod: dict[str, Any] | None = None,
    prepare: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    c: dict[str, Any] = {
        "id": id_,
        "note": note,
        "tables": tables,
        "stack_calls": stack_calls or [],
        "module": mod,
    }
    if mod is None:
        c["prepare"] = prepare or {"global_device_count": 1, "num_sc_per_device": 2}
    c.update(extra)
    return c


LONG = "user_embedding_table_for_very_long_feature_names"  # 49 characters


def _hand_valid() -> list[dict[str, Any]]:
    return [
        case(
            "stack2_offsets",
            "2-table explicit stack on 1 device x 2 SCs: vocab 10 -> 16, 33 -> 48; offsets 0, 8",
            [bag("a", 10, 5), bag("b", 33, 8, ["fb1", "fb2"])],
            [stack(["a", "b"])],
        ),
        case(
            "stack_named_rot1_g4s4",
            "named stack, rotation 1, 4 devices x 4 SCs: vocab rounds to 128",
            [bag("a", 100, 12), bag("b", 129, 16), bag("c", 7, 3)],
            [
                stack(
                    ["a", "b", "c"],
                    name="user_stack",
                    rotation=1,
                    global_device_count=4,
                    num_sc_per_device=4,
                )
            ],
            prepare={"global_device_count": 4, "num_sc_per_device": 4},
        ),
        case(
            "stack_default_rot_g8s4",
            "default rotation = num_sc_per_device (4) modulo 32 SparseCores",
            [bag(f"t{i}", 300 + i, 8) for i in range(10)],
            [stack([f"t{i}" for i in range(10)], global_device_count=8, num_sc_per_device=4)],
            prepare={"global_device_count": 8, "num_sc_per_device": 4},
        ),
        case(
            "stack_rot0_explicit",
            "rotation=0: every table at shard rotation 0",
            [bag("a", 64, 8), bag("b", 64, 8), bag("c", 64, 8)],
            [stack(["a", "b", "c"], rotation=0, global_device_count=2, num_sc_per_device=2)],
            prepare={"global_device_count": 2, "num_sc_per_device": 2},
        ),
        case(
            "stack_excess_padding_warns",
            "dims 8 and 20 (-> 24) stacked: logged warning, every table padded to 24",
            [bag("a", 16, 8), bag("b", 40, 20)],
            [stack(["a", "b"])],
        ),
        case(
            "stack_order_follows_list",
            "stack_tables keeps the tables list's order, not table_names' order",
            [bag("a", 16, 8), bag("b", 16, 8), bag("c", 16, 8)],
            [stack(["c", "a"])],
        ),
        case(
            "stack_g3_odd_vocab",
            "3 devices x 2 SCs: vocab rounds to a multiple of 48; dims 1 and 9",
            [bag("a", 49, 1), bag("b", 95, 9), bag("c", 1, 1)],
            [stack(["a", "c"], global_device_count=3, num_sc_per_device=2)],
            prepare={"global_device_count": 3, "num_sc_per_device": 2},
        ),
        case(
            "prepare_stack_table_name_groups",
            "prepare groups by stack_table_name; a table without one is its own stack",
            [
                bag("a", 16, 8, stack_table_name="g"),
                bag("b", 17, 8, stack_table_name="g"),
                bag("c", 18, 8),
                bag("d", 19, 8, stack_table_name="g"),
            ],
        ),
        case(
            "prepare_stack_name_equals_table",
            "a stack_table_name equal to another table's name merges the two into one stack",
            [bag("a", 16, 8), bag("b", 16, 8, stack_table_name="a")],
        ),
        case(
            "prepare_g1s1",
            "1 device x 1 SC: vocab rounds to 8",
            [bag("a", 1, 1), bag("b", 9, 7), seq("s", 3, 4, 5)],
        ),
        case(
            "auto_long_names_short",
            "auto stack of long names: '_'.join > 50 chars -> first 50 + '_' + sha256[:12]",
            [bag(f"{LONG}_{i}", 100, 16) for i in range(3)],
            [auto()],
        ),
        case(
            "auto_long_names_full",
            "the same with use_short_names=False: the full joined name",
            [bag(f"{LONG}_{i}", 100, 16) for i in range(3)],
            [auto(use_short_names=False)],
        ),
        case(
            "stack_long_names_no_name",
            "stack_tables without a name always shortens (use_short_names=True)",
            [bag(f"{LONG}_{i}", 100, 16) for i in range(2)],
            [stack([f"{LONG}_0", f"{LONG}_1"])],
        ),
        case(
            "stack_name_exactly_50",
            "a joined name of exactly 50 characters is kept whole",
            [bag("a" * 24, 8, 8), bag("b" * 25, 8, 8)],
            [stack(["a" * 24, "b" * 25])],
        ),
        case(
            "auto_groups_by_key",
            "auto groups by (EBC, padded dim, pooling) / (EC, padded dim, max_seq_len), name order",
            [
                bag("z", 100, 5),
                bag("y", 100, 8),
                bag("x", 100, 8, pooling="MEAN"),
                bag("w", 100, 16),
                seq("v", 100, 8, 10),
                seq("u", 100, 8, 20),
                seq("t", 100, 7, 10),
            ],
            [auto(batch_size=16)],
        ),
        case(
            "auto_split_small_limit",
            "activation limit 4096 B: 8 tables of dim 16, batch 64, 2 SCs (2048 B each) -> pairs",
            [bag(f"t{i}", 1000, 16) for i in range(8)],
            [auto(batch_size=64, activation_mem_bytes_limit=4096)],
        ),
        case(
            "auto_split_first_fit",
            "first fit in name order: a 96 B, b 64, c 32, d 64 against 128 -> [a, c], [b, d]",
            [
                bag("a", 10, 8, ["a1", "a2", "a3"]),
                bag("b", 10, 8, ["b1", "b2"]),
                bag("c", 10, 8, ["c1"]),
                bag("d", 10, 8, ["d1", "d2"]),
            ],
            [auto(batch_size=2, num_sc_per_device=2, activation_mem_bytes_limit=128)],
        ),
        case(
            "auto_limit_zero",
            "activation limit 0 with batch 16: every table is its own stack (no error)",
            [bag(f"t{i}", 50, 8) for i in range(4)],
            [auto(batch_size=16, activation_mem_bytes_limit=0)],
        ),
        case(
            "auto_limit_zero_batch1",
            "limit 0 with the default batch_size 1 on 2 SCs: 1 * 1 // 2 = 0 bytes, one stack",
            [bag(f"t{i}", 50, 8) for i in range(4)],
            [auto(activation_mem_bytes_limit=0)],
        ),
        case(
            "auto_ignores_stack_table_name",
            "auto stacking groups by key and ignores stack_table_name",
            [
                bag("a", 16, 8, stack_table_name="g1"),
                bag("b", 16, 8, stack_table_name="g2"),
                bag("c", 16, 8, stack_table_name="g1"),
            ],
            [auto()],
        ),
        case(
            "auto_seq_limit_by_seq_len",
            "sequence tables: activation = dim * features * max_seq_len * batch / SCs * 4",
            [seq("a", 100, 8, 64), seq("b", 100, 8, 64), seq("c", 100, 8, 64)],
            [auto(batch_size=32, activation_mem_bytes_limit=2 * 8 * 64 * 16 * 4)],
        ),
        case(
            "auto_after_explicit",
            "auto_stack_tables stacks only the tables not stacked yet",
            [bag("a", 16, 8), bag("b", 16, 8), bag("c", 16, 8), bag("d", 16, 8)],
            [stack(["a", "d"], name="ad"), auto()],
        ),
        case(
            "module_bag_sgd",
            "bag collection, SGD, explicit 2-table stack",
            [bag("a", 10, 5), bag("b", 33, 8, ["fb1", "fb2"])],
            [stack(["a", "b"])],
            module("bag", "SGD", {"lr": 0.05}),
            preprocessor=True,
        ),
        case(
            "module_bag_adagrad_aliases",
            "learning_rate -> lr, epsilon -> eps; Adagrad accumulator filled with 0.25",
            [bag("a", 100, 16), bag("b", 200, 16)],
            [],
            module(
                "bag",
                "Adagrad",
                {"learning_rate": 0.3, "epsilon": 1e-6, "initial_accumulator_value": 0.25},
                auto_stack=True,
            ),
        ),
        case(
            "module_bag_adagrad_default",
            "Adagrad without initial_accumulator_value: accumulators are 0.0",
            [bag("a", 100, 16)],
            [],
            module("bag", "Adagrad", {"lr": 0.1}),
        ),
        case(
            "module_bag_adam_betas",
            "Adam: betas -> beta1, beta2; momentum and velocity per stack",
            [bag("a", 100, 16), bag("b", 100, 24)],
            [],
            module("bag", "Adam", {"lr": 0.001, "betas": [0.8, 0.9]}),
        ),
        case(
            "module_default_lr",
            "no lr given: learning rate 0.01",
            [bag("a", 100, 16)],
            [],
            module("bag", "SGD", {}),
        ),
        case(
            "module_seq_kwargs_none",
            "sequence collection with optimizer_kwargs None: {'lr': 0.01}",
            [seq("a", 100, 16, 4), seq("b", 50, 16, 4)],
            [],
            module("sequence", "SGD", None, auto_stack=True),
        ),
        case(
            "module_bag_g4s4_local",
            "4 devices x 4 SCs, one process: the weight is the LOCAL quarter of the stack",
            [bag("a", 1000, 32), bag("b", 10, 32)],
            [],
            module(
                "bag",
                "Adagrad",
                {"lr": 0.1},
                global_device_count=4,
                num_sc_per_device=4,
                batch_size=16,
                auto_stack=True,
            ),
        ),
        case(
            "module_auto_small_limit",
            "the module's own auto stacking, with a small activation limit",
            [bag(f"t{i}", 64 * (i + 1), 8 * (1 + i % 3)) for i in range(6)],
            [],
            module(
                "bag",
                "SGD",
                {"lr": 0.1},
                auto_stack=True,
                batch_size=64,
                activation_mem_bytes_limit=8192,
            ),
        ),
        case(
            "module_rotation_local",
            "explicit rotation 1 on 2 SCs: the table's blocks are rolled by 1 in the weight",
            [bag("a", 16, 8), bag("b", 16, 8)],
            [stack(["a", "b"], rotation=1)],
            module("bag", "SGD", {"lr": 0.1}),
            preprocessor=True,
        ),
        case(
            "module_seq_preprocessor",
            "sequence collection: the preprocessor's per-feature batch is batch * max_seq_len",
            [seq("a", 100, 16, 4, ["fa1", "fa2"]), seq("b", 50, 16, 4)],
            [],
            module("sequence", "SGD", {"lr": 0.1}, auto_stack=True),
            preprocessor=True,
        ),
    ]


def _hand_mistakes() -> list[dict[str, Any]]:
    return [
        case(
            "dup_names_prepare",
            "two tables named 'a': prepare stacks both under 'a' (dicts keyed by name collapse)",
            [bag("a", 16, 8), bag("a", 32, 8, ["f2"])],
        ),
        case(
            "dup_names_module",
            "the same in a module: the one weight holds two copies of one table's rows",
            [bag("a", 16, 8), bag("a", 32, 8, ["f2"])],
            [],
            module("bag"),
        ),
        case(
            "dup_names_stack_tables",
            "stack_tables(['a']) with two tables named 'a': 'not found: set()'",
            [bag("a", 16, 8), bag("a", 32, 8, ["f2"])],
            [stack(["a"])],
        ),
        case(
            "bare_string_substring",
            "stack_tables(tables, 'ab'): 'in' on a string matches a and b; accepted",
            [bag("a", 16, 8), bag("b", 16, 8), bag("c", 16, 8)],
            [stack("ab")],
        ),
        case(
            "bare_string_user",
            "stack_tables(tables, 'user') with a table 'user': 1 found vs 4 letters",
            [bag("user", 16, 8), bag("item", 16, 8)],
            [stack("user")],
        ),
        case(
            "empty_table_names",
            "stack_tables(tables, []): IndexError",
            [bag("a", 16, 8)],
            [stack([])],
        ),
        case(
            "name_not_found",
            "stack_tables with a name not in tables",
            [bag("a", 16, 8)],
            [stack(["a", "nope"])],
        ),
        case(
            "ebc_ec_mixed",
            "a bag and a sequence table in one stack",
            [bag("a", 16, 8), seq("s", 16, 8, 4)],
            [stack(["a", "s"])],
        ),
        case(
            "ebc_ec_mixed_prepare",
            "the same through stack_table_name and prepare",
            [bag("a", 16, 8, stack_table_name="g"), seq("s", 16, 8, 4, stack_table_name="g")],
        ),
        case(
            "pooling_mixed",
            "SUM and MEAN in one stack",
            [bag("a", 16, 8), bag("b", 16, 8, pooling="MEAN")],
            [stack(["a", "b"])],
        ),
        case(
            "excess_padding_fail",
            "fail_on_excess_padding with dims 8 and 32",
            [bag("a", 16, 8), bag("b", 16, 32)],
            [stack(["a", "b"], fail_on_excess_padding=True)],
        ),
        case(
            "vocab_zero_module",
            "num_embeddings=0: accepted, a 0-row weight",
            [bag("a", 0, 8), bag("b", 16, 8)],
            [],
            module("bag", "Adagrad", {"lr": 0.1}),
        ),
        case(
            "vocab_zero_with_init_range",
            "num_embeddings=0 with an init range: the config accepts it, and so does torch_tpu",
            [bag("a", 0, 8, weight_init_min=-0.1, weight_init_max=0.1), bag("b", 16, 8)],
            [stack(["a", "b"])],
            module("bag", "Adagrad", {"lr": 0.1}),
        ),
        case(
            "vocab_negative_with_init_range",
            "num_embeddings=-5 with an init range: padded vocab rounds to 0, accepted",
            [bag("a", -5, 8, weight_init_min=-0.1, weight_init_max=0.1)],
        ),
        case(
            "vocab_negative",
            "num_embeddings=-5: accepted, padded vocab rounds to 0",
            [bag("a", -5, 8)],
        ),
        case(
            "dim_zero_module",
            "embedding_dim=0: stack_and_shard_tables' view(-1, 0) fails",
            [bag("a", 16, 0)],
            [],
            module("bag"),
        ),
        case(
            "dim_zero_prepare",
            "embedding_dim=0 through prepare only: accepted, a 0-wide stack",
            [bag("a", 16, 0)],
        ),
        case(
            "limits_zero",
            "max_ids / max_unique_ids / coo buffer 0: accepted unchecked",
            [
                bag(
                    "a",
                    16,
                    8,
                    max_ids_per_partition=0,
                    max_unique_ids_per_partition=0,
                    suggested_coo_buffer_size_per_device=0,
                )
            ],
            [],
            module("bag"),
        ),
        case(
            "devices_zero",
            "global_device_count=0: 8 * 0 SparseCores, ZeroDivisionError",
            [bag("a", 16, 8)],
            [stack(["a"], global_device_count=0)],
        ),
        case(
            "module_sc_zero",
            "num_sc_per_device=0 in the module: batch_size % 0",
            [bag("a", 16, 8)],
            [],
            module("bag", num_sc_per_device=0),
        ),
        case(
            "seq_no_max_seq_len_stack",
            "sequence table without max_seq_len in stack_tables",
            [seq("s", 16, 8, None)],
            [stack(["s"])],
        ),
        case(
            "seq_no_max_seq_len_auto",
            "the same in auto_stack_tables (its own message)",
            [seq("s", 16, 8, None)],
            [auto()],
        ),
        case(
            "seq_no_max_seq_len_ec",
            "the same in the sequence collection: refused before anything",
            [seq("s", 16, 8, None)],
            [],
            module("sequence"),
        ),
        case(
            "seq_no_max_seq_len_in_bag_coll",
            "a sequence table without max_seq_len in the bag collection: prepare refuses",
            [bag("a", 16, 8), seq("s", 16, 8, None)],
            [],
            module("bag"),
        ),
        case(
            "max_seq_len_differs",
            "max_seq_len 4 and 16 in one explicit stack: accepted, the stack reads 4",
            [seq("a", 16, 8, 4), seq("b", 16, 8, 16)],
            [stack(["a", "b"])],
            module("sequence"),
        ),
        case(
            "same_name_two_stacks",
            "two explicit stacks named 's': prepare keeps the first, b's stack is dropped",
            [bag("a", 16, 8), bag("b", 16, 8)],
            [stack(["a"], name="s"), stack(["b"], name="s")],
            module("bag"),
        ),
        case(
            "restack_table",
            "a table stacked twice: the second stack wins for it; the first still lists it",
            [bag("a", 16, 8), bag("b", 16, 8)],
            [stack(["a", "b"], name="ab"), stack(["b"], name="b_again")],
            module("bag"),
        ),
        case(
            "seq_in_bag_collection",
            "a sequence table (with max_seq_len) in the bag collection: accepted",
            [bag("a", 16, 8), seq("s", 16, 8, 4)],
            [],
            module("bag"),
        ),
        case(
            "bag_in_seq_collection",
            "a bag table in the sequence collection: accepted",
            [bag("a", 16, 8), seq("s", 16, 8, 4)],
            [],
            module("sequence"),
        ),
        case(
            "batch_not_divisible",
            "batch 6 on 4 SCs per device",
            [bag("a", 16, 8)],
            [],
            module("bag", batch_size=6, num_sc_per_device=4),
        ),
        case(
            "optimizer_adamw",
            "torch.optim.AdamW (a subclass of Adam) is refused after the first weight",
            [bag("a", 16, 8), bag("b", 16, 16)],
            [],
            module("bag", "AdamW"),
        ),
        case(
            "optimizer_rmsprop",
            "torch.optim.RMSprop is refused after the first weight",
            [bag("a", 16, 8)],
            [],
            module("bag", "RMSprop"),
        ),
        case(
            "optimizer_string",
            "the string 'sgd' instead of the class",
            [bag("a", 16, 8)],
            [],
            module("bag", "sgd"),
        ),
        case(
            "topology_mismatch_stack_module",
            "stacked for 1x2 SCs, module on 8x4: the padded vocab does not fit the module",
            [bag("a", 16, 8)],
            [stack(["a"])],
            module("bag", global_device_count=8, num_sc_per_device=4, batch_size=8),
        ),
        case(
            "no_tables_module",
            "a collection of no tables",
            [],
            [],
            module("bag"),
        ),
        case(
            "duplicate_feature_names",
            "two tables reading one feature: accepted",
            [bag("a", 16, 8, ["f"]), bag("b", 16, 8, ["f"])],
            [],
            module("bag"),
        ),
        case(
            "no_features",
            "a table with no feature: multiplier 0, accepted",
            [bag("a", 16, 8, [])],
            [],
            module("bag"),
        ),
    ]


def _random_cases(n: int = 24) -> list[dict[str, Any]]:
    """Valid-looking cases from a seeded generator: 1-20 tables, dims and vocabularies that are
    rarely multiples of 8 or of 8 * SparseCores, 1-64 devices, 1/2/4 SparseCores."""
    rng = random.Random(SEED)
    out = []
    for k in range(n):
        devices = rng.choice([1, 1, 2, 3, 4, 8, 16, 32, 64])
        scs = rng.choice([1, 2, 4])
        n_tables = rng.randint(1, 20)
        coll = rng.choice(["bag", "bag", "sequence"])
        tables = []
        for i in range(n_tables):
            name = f"r{k}_t{i}" if rng.random() < 0.8 else f"r{k}_{LONG}_{i}"
            vocab = rng.randint(1, 5000)
            dim = rng.choice([rng.randint(1, 130), 8, 16, 32, 64])
            feats = [f"r{k}_f{i}_{j}" for j in range(rng.randint(1, 3))]
            if coll == "bag":
                t = bag(name, vocab, dim, feats, pooling=rng.choice(["SUM", "MEAN", None]))
            else:
                t = seq(name, vocab, dim, rng.choice([1, 4, 10, 20]), feats)
            if rng.random() < 0.2:
                t["stack_table_name"] = f"r{k}_g{rng.randint(0, 2)}"
            tables.append(t)
        mode = rng.choice(["module", "module", "prepare", "explicit"])
        batch = scs * rng.choice([1, 2, 4, 8, 16])
        calls: list[dict[str, Any]] = []
        mod = None
        prepare = {"global_device_count": devices, "num_sc_per_device": scs}
        if mode == "explicit":
            # One explicit stack of compatible tables (same kind and pooling), maybe named and
            # rotated; the rest left to prepare.
            first = tables[0]
            same = [
                t["name"]
                for t in tables
                if t["kind"] == first["kind"] and t["pooling"] == first["pooling"]
            ]
            pick = same[: rng.randint(1, len(same))]
            calls.append(
                stack(
                    pick,
                    name=rng.choice([None, f"r{k}_explicit"]),
                    rotation=rng.choice([None, None, 0, 1, 3]),
                    global_device_count=devices,
                    num_sc_per_device=scs,
                    batch_size=batch,
                )
            )
            for t in tables:
                if t["name"] in pick:
                    t["stack_table_name"] = None
            # A named stack and a table's stack_table_name must not collide here.
            if rng.random() < 0.5:
                mod = module(
                    coll,
                    rng.choice(["SGD", "Adagrad", "Adam"]),
                    global_device_count=devices,
                    num_sc_per_device=scs,
                    batch_size=batch,
                )
        elif mode == "module":
            limit = rng.choice([None, 0, 4096, 65536, 1 << 20])
            mod = module(
                coll,
                rng.choice(["SGD", "Adagrad", "Adam"]),
                {"lr": rng.choice([0.1, 0.01, 0.5])},
                global_device_count=devices,
                num_sc_per_device=scs,
                batch_size=batch,
                auto_stack=rng.random() < 0.6,
                activation_mem_bytes_limit=limit,
            )
        else:
            if rng.random() < 0.5:
                calls.append(
                    auto(
                        global_device_count=devices,
                        num_sc_per_device=scs,
                        batch_size=batch,
                        activation_mem_bytes_limit=rng.choice([None, 0, 8192, 1 << 16]),
                        use_short_names=rng.random() < 0.8,
                    )
                )
        c = case(
            f"rand{k:02d}",
            f"seeded random ({mode}, {coll}, {devices}x{scs})",
            tables,
            calls,
            mod,
            prepare if mod is None else None,
        )
        out.append(c)
    return out


def cases() -> list[dict[str, Any]]:
    return _hand_valid() + _hand_mistakes() + _random_cases()


def by_id() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in cases()}


def _ck(tables: list[dict[str, Any]], calls: list[dict[str, Any]], **mod: Any) -> dict[str, Any]:
    return case("ck", "", tables, calls, module(**{"optimizer": "Adagrad", **mod}))


def checkpoint_cases() -> list[dict[str, Any]]:
    """Save / load pairs for save_checkpoint and load_checkpoint: {"id", "note", "save", "load",
    "unshard_for_cpu", "into_fused" (optional)}. Tables hold known rows (row i of table t =
    (t + 1) * 1e6 + i)."""
    ab = [bag("a", 16, 8), bag("b", 20, 8)]
    ab_stacked = [stack(["a", "b"])]
    pairs: list[tuple[str, str, dict[str, Any], dict[str, Any], bool]] = [
        (
            "same_module",
            "same case, same topology: the default planner path",
            _ck(ab, ab_stacked),
            _ck(ab, ab_stacked),
            False,
        ),
        (
            "same_unshard_cpu",
            "same case, unshard_for_cpu into standard TorchRec tables",
            _ck(ab, ab_stacked),
            _ck(ab, ab_stacked),
            True,
        ),
        (
            "s1_unshard_cpu",
            "1 SparseCore: mod and block sharding coincide",
            _ck(ab, [stack(["a", "b"], num_sc_per_device=1)], num_sc_per_device=1, batch_size=8),
            _ck(ab, [stack(["a", "b"], num_sc_per_device=1)], num_sc_per_device=1, batch_size=8),
            True,
        ),
        (
            "s4_unshard_cpu",
            "4 SparseCores, vocab 64 and 100",
            _ck(
                [bag("a", 64, 8), bag("b", 100, 8)],
                [stack(["a", "b"], num_sc_per_device=4)],
                num_sc_per_device=4,
            ),
            _ck(
                [bag("a", 64, 8), bag("b", 100, 8)],
                [stack(["a", "b"], num_sc_per_device=4)],
                num_sc_per_device=4,
            ),
            True,
        ),
        (
            "rot1_unshard_cpu",
            "rotation 1 on 2 SCs",
            _ck(ab, [stack(["a", "b"], rotation=1)]),
            _ck(ab, [stack(["a", "b"], rotation=1)]),
            True,
        ),
        (
            "s2_to_s4_module",
            "saved on 2 SCs, loaded into a 4-SC module (cross topology)",
            _ck(ab, []),
            _ck(ab, [], num_sc_per_device=4),
            False,
        ),
        (
            "s4_to_s2_module",
            "saved on 4 SCs, loaded into a 2-SC module (cross topology)",
            _ck(ab, [], num_sc_per_device=4),
            _ck(ab, []),
            False,
        ),
        (
            "s1_to_s2_module",
            "saved on 1 SC, loaded into a 2-SC module (cross topology)",
            _ck(ab, [], num_sc_per_device=1),
            _ck(ab, []),
            False,
        ),
        (
            "restack_same_topology",
            "saved stacked a_b, loaded into separate a and b",
            _ck(ab, ab_stacked),
            _ck(ab, []),
            False,
        ),
        (
            "restack_cross_topology",
            "saved stacked a_b on 2 SCs, loaded separate on 4 SCs",
            _ck(ab, ab_stacked),
            _ck(ab, [], num_sc_per_device=4),
            False,
        ),
        (
            "other_tables",
            "a table renamed between save and load (b -> c)",
            _ck(ab, []),
            _ck([bag("a", 16, 8), bag("c", 20, 8)], []),
            False,
        ),
        (
            "other_tables_cpu",
            "the same, unshard_for_cpu",
            _ck(ab, []),
            _ck([bag("a", 16, 8), bag("c", 20, 8)], []),
            True,
        ),
        (
            "g2_single_process_cpu",
            "module for 2 devices built and saved by one process",
            _ck([bag("a", 64, 8)], [], global_device_count=2),
            _ck([bag("a", 64, 8)], [], global_device_count=2),
            True,
        ),
        (
            "seq_unshard_cpu",
            "sequence collection into a standard EmbeddingCollection",
            case(
                "ck",
                "",
                [seq("a", 16, 8, 4), seq("b", 20, 8, 4)],
                [stack(["a", "b"])],
                module("sequence", "SGD"),
            ),
            case(
                "ck",
                "",
                [seq("a", 16, 8, 4), seq("b", 20, 8, 4)],
                [stack(["a", "b"])],
                module("sequence", "SGD"),
            ),
            True,
        ),
    ]
    out = [
        {"id": i, "note": n, "save": s, "load": ld, "unshard_for_cpu": u}
        for i, n, s, ld, u in pairs
    ]
    # unshard_for_cpu into a fused module (the planner's "target is stacked on CPU" path):
    # "into_fused": True.
    ab32 = [bag("a", 16, 8), bag("b", 32, 8)]
    out.append(
        {
            "id": "unshard_into_fused_s1",
            "note": "unshard_for_cpu into a 1-SC fused module of the same stack (vocab 16, 32)",
            "save": _ck(ab32, [stack(["a", "b"])]),
            "load": _ck(ab32, [stack(["a", "b"], num_sc_per_device=1)], num_sc_per_device=1),
            "unshard_for_cpu": True,
            "into_fused": True,
        }
    )
    out.append(
        {
            "id": "unshard_into_fused_size_mismatch",
            "note": "the same with vocab 20: the 1-SC stack has another size",
            "save": _ck(ab, ab_stacked),
            "load": _ck(ab, [stack(["a", "b"], num_sc_per_device=1)], num_sc_per_device=1),
            "unshard_for_cpu": True,
            "into_fused": True,
        }
    )
    return out
