"""Keras-RS `DistributedEmbedding` layers as plain data, for the Keras oracle (`make test-keras`,
tests/test_keras_oracle.py) and the committed fixtures (tests/data/keras/make_fixtures.py).

Nothing here imports Keras: a case is dicts, lists and numbers, which tests/keras_probe.py turns
into Keras-RS objects inside the oracle's environment. The shapes of the data:

- an optimizer is a Keras optimizer's class name and keyword arguments (``{"class_name": "SGD",
  "config": {"learning_rate": 0.1, "momentum": 0.9}}``), or a name Keras resolves (``"adam"``); a
  learning rate may itself be a schedule, ``{"class_name": "ExponentialDecay", "config": {...}}``;
- a table is `TableConfig`'s keyword arguments, the optimizer written as above;
- a feature is `FeatureConfig`'s, its ``table`` an index into the layer's tables (two features with
  one index share the table object);
- a layer is ``{"name", "tables", "features", "table_stacking", "structure"}``, where
  ``structure`` says how the features are nested: ``"dict"`` (by feature name), ``"list"`` or
  ``"single"`` (one `FeatureConfig`, the only way into a Sequential model);
- a case is ``{"name", "layers", "model", "sparsecore"}``: ``model`` is ``"functional"``,
  ``"sequential"``, ``"functional-in-functional"`` or ``"sequential-in-functional"`` (the layer
  inside a model inside the saved one); ``sparsecore`` builds the layer through Keras-RS's
  SparseCore path with a simulated SparseCore (keras_probe.simulated_sparsecore), the only way a
  CPU saves ``table_stacking`` and ``placement="sparsecore"`` -- the CPU path's `get_config`
  leaves ``table_stacking`` out.
"""

from __future__ import annotations

import random
from typing import Any

Case = dict[str, Any]

#: The device count and SparseCores per device the oracle stacks and writes protos for (a v5p
#: slice of 4 chips: jax-tpu-embedding counts 4 SparseCores per v5 device).
DEVICES = 4
SPARSECORES = 4

BATCH = 16


def optimizer(class_name: str, **config: Any) -> dict[str, Any]:
    """A Keras optimizer by class name and keyword arguments."""
    return {"class_name": class_name, "config": config}


def table(
    name: str, vocabulary: int, dim: int, opt: Any = "adam", **settings: Any
) -> dict[str, Any]:
    """`TableConfig`'s arguments (initializer left to Keras-RS's default unless given)."""
    return {
        "name": name,
        "vocabulary_size": vocabulary,
        "embedding_dim": dim,
        "optimizer": opt,
        **settings,
    }


def feature(
    name: str,
    table_index: int,
    dim: int,
    batch: int = BATCH,
    ids: int = 1,
    out: int | None = None,
    shapes: tuple[list[int], list[int]] | None = None,
) -> dict[str, Any]:
    """`FeatureConfig`'s arguments: ``ids`` ids a sample, output dimension ``out`` (the table's
    ``dim`` unless given); or ``shapes``, the input and output shapes as they are."""
    input_shape, output_shape = shapes or ([batch, ids], [batch, dim if out is None else out])
    return {
        "name": name,
        "table": table_index,
        "input_shape": input_shape,
        "output_shape": output_shape,
    }


def _wrong_shapes(dim: int, ids: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """A feature's input and a declared output the layer does not return: a width, a batch or a
    rank other than the returned one."""
    return rng.choice(
        [
            ([BATCH, ids], [BATCH, dim + 1]),
            ([BATCH, ids], [2 * BATCH, dim]),
            ([BATCH, ids], [BATCH, ids, dim]),
            ([BATCH, ids, 1], [BATCH, dim]),
        ]
    )


def layer(
    name: str,
    tables: list[dict[str, Any]],
    features: list[dict[str, Any]] | None = None,
    table_stacking: Any = "auto",
    structure: str = "dict",
) -> dict[str, Any]:
    """A layer; without ``features``, one feature per table (named after it)."""
    if features is None:
        features = [
            feature(f"{t['name']}_ids", i, t["embedding_dim"]) for i, t in enumerate(tables)
        ]
    return {
        "name": name,
        "tables": tables,
        "features": features,
        "table_stacking": table_stacking,
        "structure": structure,
    }


def case(
    name: str, *layers: dict[str, Any], model: str = "functional", sparsecore: bool = False
) -> Case:
    return {"name": name, "layers": list(layers), "model": model, "sparsecore": sparsecore}


# The committed fixtures (tests/data/keras/<name>.keras), small enough to read by eye: tiny
# vocabularies keep the weights small.
FIXTURES: list[Case] = [
    case(
        "clean",
        layer(
            "embedding",
            [
                table("users", 20, 8, optimizer("Adagrad", learning_rate=0.05)),
                table("items", 30, 16, optimizer("SGD", learning_rate=0.1)),
            ],
        ),
    ),
    case(
        "nested",
        layer(
            "inner_embedding",
            [table("words", 25, 4, optimizer("Adam", learning_rate=0.001))],
            [feature("words_ids", 0, 4, ids=3)],
            structure="single",
        ),
        model="sequential-in-functional",
    ),
    case(
        "output_shape_mismatch",
        layer(
            "embedding",
            [table("users", 20, 16, optimizer("SGD", learning_rate=0.1))],
            # The example: (32, 8) on a dimension-16 table, fed a batch of 32.
            [feature("users_ids", 0, 16, batch=32, out=8)],
        ),
    ),
    case(
        "clipnorm_momentum",
        layer(
            "embedding",
            [
                table(
                    "users",
                    20,
                    8,
                    optimizer("SGD", learning_rate=0.1, momentum=0.9, clipnorm=1.0),
                ),
                table("items", 30, 8, optimizer("Adam", learning_rate=0.001, amsgrad=True)),
                table("tags", 12, 4, optimizer("RMSprop", learning_rate=0.01)),
            ],
        ),
    ),
    case(
        "two_layers",
        layer("user_embedding", [table("users", 20, 8, optimizer("SGD", learning_rate=0.1))]),
        layer(
            "item_embedding",
            [table("items", 30, 8, optimizer("Ftrl", learning_rate=0.05))],
            table_stacking=None,
        ),
    ),
    case(
        "explicit_stacking",
        layer(
            "embedding",
            [
                table("users", 20, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                table("items", 30, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                table("tags", 12, 4, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
            ],
            table_stacking=[["users", "items"]],
        ),
        sparsecore=True,
    ),
    case(
        # What Keras-RS's TensorFlow conversion also takes: "auto" stacking, a batch that 8 replicas
        # divide, optimizers with no option it refuses, outputs of rank 2.
        "tf_compatible",
        layer(
            "embedding",
            [
                table("users", 20, 8, optimizer("Adagrad", learning_rate=0.05), combiner="sum"),
                table("items", 30, 16, optimizer("Adam", learning_rate=0.001)),
                table("queries", 24, 8, optimizer("Ftrl", learning_rate=0.05)),
            ],
            [
                feature("users_ids", 0, 8, batch=32),
                feature("items_ids", 1, 16, batch=32, ids=2),
                feature("queries_ids", 2, 8, batch=32),
            ],
        ),
    ),
]


# Handwritten cases: each optimizer and option Keras-RS's JAX conversion knows or refuses, the
# placements, table_stacking forms, shared tables, nesting and limits.
_ACCEPTED_OPTIMIZERS: list[Any] = [
    "adam",
    "sgd",
    "adagrad",
    "ftrl",
    optimizer("SGD", learning_rate=0.5),
    optimizer("Adagrad", learning_rate=0.1, initial_accumulator_value=0.5),
    optimizer("Adam", learning_rate=0.002, beta_1=0.8, beta_2=0.99, epsilon=1e-6),
    optimizer(
        "Ftrl",
        learning_rate=0.1,
        learning_rate_power=-0.25,
        l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
        beta=0.5,
        initial_accumulator_value=0.2,
    ),
    # Accepted, but dropped on the way (AdamW becomes Adam; weight_decay, clipvalue and
    # gradient_accumulation_steps have no counterpart).
    optimizer("AdamW", learning_rate=0.001, weight_decay=0.004),
    optimizer("SGD", learning_rate=0.1, clipvalue=0.5),
    optimizer("Adam", learning_rate=0.001, gradient_accumulation_steps=4),
    optimizer(
        "SGD",
        learning_rate={
            "class_name": "ExponentialDecay",
            "config": {"initial_learning_rate": 0.1, "decay_steps": 100, "decay_rate": 0.9},
        },
    ),
]

_REFUSED_OPTIMIZERS: list[Any] = [
    optimizer("SGD", learning_rate=0.1, momentum=0.9),
    optimizer("SGD", learning_rate=0.1, momentum=0.9, nesterov=True),
    optimizer("SGD", learning_rate=0.1, clipnorm=1.0),
    optimizer("Adam", learning_rate=0.001, global_clipnorm=5.0),
    optimizer("Adam", learning_rate=0.001, amsgrad=True),
    optimizer("AdamW", learning_rate=0.001, amsgrad=True),
    optimizer("Adagrad", learning_rate=0.1, epsilon=1e-5),
    optimizer("Ftrl", learning_rate=0.1, l2_shrinkage_regularization_strength=0.1),
    optimizer("SGD", learning_rate=0.1, use_ema=True),
    optimizer("Adagrad", learning_rate=0.1, loss_scale_factor=128.0),
    optimizer("RMSprop", learning_rate=0.001),
    optimizer("RMSprop", learning_rate=0.001, momentum=0.9, centered=True),
    optimizer("Adamax", learning_rate=0.002),
    optimizer("Nadam", learning_rate=0.002),
    optimizer("Lion", learning_rate=0.0001),
    optimizer("Adadelta", learning_rate=1.0),
]


def _handwritten() -> list[Case]:
    cases: list[Case] = []
    for i, opt in enumerate(_ACCEPTED_OPTIMIZERS):
        cases.append(case(f"accepted_{i}", layer("embedding", [table("t", 40, 8, opt)])))
    for i, opt in enumerate(_REFUSED_OPTIMIZERS):
        cases.append(
            case(
                f"refused_{i}",
                layer(
                    "embedding",
                    [
                        table("ok", 40, 8, optimizer("SGD", learning_rate=0.1)),
                        table("bad", 50, 4, opt),
                    ],
                ),
            )
        )
    shared = [table("shared", 64, 12, optimizer("Adagrad", learning_rate=0.1))]
    cases += [
        case(
            "shared_table",
            layer(
                "embedding",
                shared,
                [
                    feature("query", 0, 12),
                    feature("history", 0, 12, ids=5),
                    feature("title", 0, 12),
                ],
            ),
        ),
        case(
            "placements",
            layer(
                "embedding",
                [
                    table("on_sc", 40, 8, optimizer("SGD", learning_rate=0.1), placement="auto"),
                    # Never converted: the refused momentum only matters on a SparseCore.
                    table(
                        "on_tc",
                        40,
                        8,
                        optimizer("SGD", learning_rate=0.1, momentum=0.9),
                        placement="default_device",
                    ),
                ],
            ),
        ),
        case(
            "sparsecore_auto_stacking",
            layer(
                "embedding",
                [
                    table(
                        f"t{i}",
                        16 + i,
                        8,
                        optimizer("SGD", learning_rate=0.1),
                        placement="sparsecore",
                    )
                    for i in range(4)
                ],
            ),
            sparsecore=True,
        ),
        case(
            "sparsecore_no_stacking",
            layer(
                "embedding",
                [
                    table(
                        "a", 16, 8, optimizer("Adam", learning_rate=0.01), placement="sparsecore"
                    ),
                    table(
                        "b", 16, 8, optimizer("Adam", learning_rate=0.01), placement="sparsecore"
                    ),
                ],
                table_stacking=None,
            ),
            sparsecore=True,
        ),
        case(
            "sparsecore_one_list",
            layer(
                "embedding",
                [
                    table("a", 16, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                    table("b", 24, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                    table("c", 8, 4, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                ],
                table_stacking=["a", "c"],
            ),
            sparsecore=True,
        ),
        case(
            # Keras-RS raises KeyError("a") while it builds: "a" is not among the tables it
            # stacks (only the SparseCore ones).
            "stacking_names_a_default_device_table",
            layer(
                "embedding",
                [
                    table(
                        "a", 16, 8, optimizer("SGD", learning_rate=0.1), placement="default_device"
                    ),
                    table("b", 24, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                    table("c", 8, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                ],
                table_stacking=[["a", "b"]],
            ),
            sparsecore=True,
        ),
        case(
            # A tuple: the live layer ignores it (neither a string nor a list), its config.json
            # holds a list, and the reloaded layer stacks.
            "stacking_as_a_tuple",
            layer(
                "embedding",
                [
                    table("a", 16, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                    table("b", 24, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                    table("c", 8, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                ],
                table_stacking=(("a", "b"),),
            ),
            sparsecore=True,
        ),
        *(
            # Forms the JAX layer stacks nothing for (neither None, a string nor a non-empty
            # list), which its config.json keeps as they are: keras-table-stacking-stacks-nothing.
            case(
                f"stacking_as_{kind}",
                layer(
                    "embedding",
                    [
                        table(
                            "a", 16, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"
                        ),
                        table(
                            "b", 24, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"
                        ),
                    ],
                    table_stacking=value,
                ),
                sparsecore=True,
            )
            for kind, value in (
                ("an_object", {"group": ["a", "b"]}),
                ("a_number", 2),
                ("an_empty_list", []),
            )
        ),
        case(
            # Two tables of one name on the SparseCores: Keras-RS's JAX conversion keeps the
            # first one's spec (by the features' sorted paths) and gives both features its rows.
            "two_tables_of_one_name",
            layer(
                "embedding",
                [
                    table(
                        "items", 16, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"
                    ),
                    table(
                        "items",
                        24,
                        8,
                        optimizer("Adagrad", learning_rate=0.1),
                        placement="sparsecore",
                    ),
                ],
                [feature("first", 0, 8), feature("second", 1, 8)],
            ),
            sparsecore=True,
        ),
        case(
            # The table's own SGD has a learning rate of 0: if Keras-RS used it, the table would
            # never change (keras_probe.tensorcore_rows_trained shows it does).
            "default_device_optimizer",
            layer(
                "embedding",
                [
                    table(
                        "country",
                        10,
                        4,
                        optimizer("SGD", learning_rate=0.0),
                        placement="default_device",
                        initializer="ones",
                    ),
                    table("users", 20, 8, optimizer("SGD", learning_rate=0.1)),
                ],
            ),
        ),
        case(
            # jax-tpu-embedding's stack_tables refuses tables of different optimizers.
            "stacking_mixes_optimizers",
            layer(
                "embedding",
                [
                    table("a", 16, 8, optimizer("SGD", learning_rate=0.1), placement="sparsecore"),
                    table(
                        "b", 24, 8, optimizer("Adagrad", learning_rate=0.1), placement="sparsecore"
                    ),
                ],
                table_stacking=[["a", "b"]],
            ),
            sparsecore=True,
        ),
        case(
            "output_dim_larger",
            layer("embedding", [table("t", 40, 8)], [feature("t_ids", 0, 8, out=32)]),
        ),
        # keras-rs 0.4.0 on CPU, for a table of dimension 16: input (32, 1) declared (64, 16)
        # returns (32, 16); input (32, 10) declared (32, 10, 16) returns (32, 16); input
        # (32, 10, 1) declared (32, 16) returns (32, 10, 16). (A declared (16,) returns (32, 16)
        # too, but tpuemb's JAX compiler refuses a rank-1 output that jax-tpu-embedding 0.1.0's
        # create_proto_from_feature_specs takes: left out until that is settled.)
        case(
            "output_shape_other_dimensions",
            layer(
                "embedding",
                [table("t", 40, 16)],
                [
                    feature("batch", 0, 16, shapes=([32, 1], [64, 16])),
                    feature("sequence", 0, 16, shapes=([32, 10], [32, 10, 16])),
                    feature("deeper", 0, 16, shapes=([32, 10, 1], [32, 16])),
                    feature("deeper_ok", 0, 16, shapes=([32, 10, 1], [32, 10, 16])),
                    feature("rank1_ok", 0, 16, shapes=([32], [32, 16])),
                ],
            ),
        ),
        case(
            "output_batch_differs",
            layer("embedding", [table("t", 40, 8)], [feature("t_ids", 0, 8, batch=16)]),
        ),
        case(
            "list_structure",
            layer("embedding", [table("a", 10, 3), table("b", 11, 5)], structure="list"),
        ),
        case(
            "functional_in_functional",
            layer("inner", [table("a", 10, 3), table("b", 11, 5)]),
            model="functional-in-functional",
        ),
        case(
            "sequential",
            layer("emb", [table("a", 10, 6)], [feature("a_ids", 0, 6, ids=2)], structure="single"),
            model="sequential",
        ),
        case(
            "limits",
            layer(
                "embedding",
                [
                    table("a", 100, 8, max_ids_per_partition=64, max_unique_ids_per_partition=32),
                    table(
                        "b", 100, 8, max_ids_per_partition=1024, max_unique_ids_per_partition=512
                    ),
                ],
            ),
        ),
        case("dim_1", layer("embedding", [table("narrow", 10, 1)])),
        case("dim_300", layer("embedding", [table("wide", 10, 300)])),
        case(
            "combiners",
            layer(
                "embedding",
                [table("s", 10, 4, combiner="sum"), table("q", 10, 4, combiner="sqrtn")],
            ),
        ),
    ]
    return cases


def _generated(count: int, seed: int) -> list[Case]:
    """``count`` layers drawn with ``seed``: 1 to 20 tables of dimension 1 to 300, shared tables,
    optimizers from both lists, output dimensions now and then wrong, each stacking form."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for n in range(count):
        tables: list[dict[str, Any]] = []
        count_tables = rng.randint(1, 20)
        # One layer in three has one table with an optimizer the conversion refuses.
        refused = rng.randrange(count_tables) if rng.random() < 1 / 3 else -1
        for i in range(count_tables):
            opt = rng.choice(_REFUSED_OPTIMIZERS if i == refused else _ACCEPTED_OPTIMIZERS)
            settings: dict[str, Any] = {}
            if rng.random() < 0.3:
                settings["max_ids_per_partition"] = rng.choice([32, 64, 256, 1024])
                settings["max_unique_ids_per_partition"] = rng.choice([16, 32, 256])
            if rng.random() < 0.2:
                settings["combiner"] = rng.choice(["sum", "sqrtn"])
            if rng.random() < 0.1:
                settings["placement"] = "default_device"
            # Zeros: Keras compiles its default (truncated normal) initializer once a shape, a
            # second a table on this machine.
            settings["initializer"] = "zeros"
            tables.append(
                table(f"t{n}_{i}", rng.randint(2, 64), rng.randint(1, 300), opt, **settings)
            )
        features: list[dict[str, Any]] = []
        for i, t in enumerate(tables):
            for k in range(1 if rng.random() < 0.8 else 2):  # some tables shared by two features
                wrong = rng.random() < 0.05
                dim = t["embedding_dim"]
                ids = rng.choice([1, 1, 2, 4])
                # Drawn apart, so that the other draws stay those of earlier seeds.
                side = random.Random(f"{seed}/{n}/{i}/{k}")
                shapes = _wrong_shapes(dim, ids, side) if wrong else None
                features.append(feature(f"f{i}_{k}", i, dim, ids=ids, shapes=shapes))
        stacking: Any = rng.choice(["auto", "auto", None, "explicit"])
        if stacking == "explicit":
            names = [t["name"] for t in tables]
            alike = [t["name"] for t in tables if t["optimizer"] == tables[0]["optimizer"]]
            # Tables with one optimizer stack; a half of them, mixed, makes the library raise.
            stacking = [
                alike if len(alike) > 1 and rng.random() < 0.6 else names[: max(1, len(names) // 2)]
            ]
        # Only the SparseCore path saves table_stacking (and builds or raises as on a TPU).
        sparsecore = stacking != "auto" and rng.random() < 0.7
        cases.append(
            case(
                f"generated_{n}",
                layer("embedding", tables, features, table_stacking=stacking),
                sparsecore=sparsecore,
            )
        )
    return cases


def all_cases() -> list[Case]:
    """Every case the oracle builds: the fixtures, the handwritten ones, 24 drawn ones."""
    return FIXTURES + _handwritten() + _generated(24, seed=28)
