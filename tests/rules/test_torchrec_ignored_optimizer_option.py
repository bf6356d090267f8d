"""torchrec-ignored-optimizer-option (TE855) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

TABLE = 'tables { name: "t" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "f" }\n'
OPTIMIZER = ("collection", "optimizer")


def lint(optimizer: str, kwargs: str) -> list[tuple[object, ...]]:
    text = TABLE + f'collection {{ batch_size: 8 optimizer {{ type: "{optimizer}" {kwargs} }} }}'
    return findings_of_rule("TE855", text)


def test_options_adam_never_reads_and_one_given_twice() -> None:
    found = lint(
        "Adam",
        'kwargs { key: "lr" value: 0.1 } kwargs { key: "learning_rate" value: 0.2 } '
        'kwargs { key: "weight_decay" value: 0.01 } '
        'kwargs { key: "initial_accumulator_value" value: 0.1 } '
        'other_kwargs: "betas" kwargs { key: "beta1" value: 0.5 } '
        'kwargs { key: "learnin_rate" value: 1 }',
    )
    adam = "the fused collection reads only `lr`, `eps`, `beta1` and `beta2` for Adam"
    # The finding on the optimizer (where the option is missing) comes first, as the engine
    # sorts by place.
    assert found == [
        (
            OPTIMIZER,
            "no `eps` in optimizer_kwargs: the fused collection uses 1e-10, not "
            "torch.optim.Adam's default 1e-08",
            "write `eps` in optimizer_kwargs (1e-08 for torch.optim.Adam's)",
        ),
        (
            (*OPTIMIZER, "kwargs", "lr"),
            "optimizer_kwargs `lr` is given together with `learning_rate`: the collection renames "
            "`learning_rate` to `lr` over it, so `lr` 0.1 is ignored and `learning_rate` 0.2 is "
            "used",
            "give `lr` once",
        ),
        (
            (*OPTIMIZER, "kwargs", "weight_decay"),
            f"optimizer_kwargs `weight_decay` is ignored: {adam}, so its tables train without it",
            "remove `weight_decay`",
        ),
        (
            (*OPTIMIZER, "kwargs", "initial_accumulator_value"),
            f"optimizer_kwargs `initial_accumulator_value` is ignored: {adam}, so its tables "
            "train without it",
            "remove `initial_accumulator_value`",
        ),
        (
            (*OPTIMIZER, "kwargs", "beta1"),
            "optimizer_kwargs `beta1` is given together with `betas`: the collection renames "
            "`betas` to `beta1` over it, so `beta1` 0.5 is ignored and `betas`'s value is used",
            "give `beta1` once",
        ),
        (
            (*OPTIMIZER, "kwargs", "learnin_rate"),
            f"optimizer_kwargs `learnin_rate` is ignored: {adam}, so its tables train without "
            "it; did you mean `learning_rate`?",
            "use `learning_rate`",
        ),
    ]


def test_sgd_and_adagrad() -> None:
    sgd = "the fused collection reads only `lr` for SGD, so its tables train without it"
    assert lint(
        "SGD",
        'kwargs { key: "eps" value: 0.1 } kwargs { key: "momentum" value: 0.9 } '
        'other_kwargs: "nesterov"',
    ) == [
        (
            OPTIMIZER,
            "no `lr` in optimizer_kwargs: the fused collection uses 0.01, not torch.optim.SGD's "
            "default 0.001",
            "write `lr` in optimizer_kwargs (0.001 for torch.optim.SGD's)",
        ),
        (
            (*OPTIMIZER, "kwargs", "eps"),
            f"optimizer_kwargs `eps` is ignored: {sgd}",
            "remove `eps`",
        ),
        (
            (*OPTIMIZER, "kwargs", "momentum"),
            f"optimizer_kwargs `momentum` is ignored: {sgd}",
            "remove `momentum`",
        ),
        (
            (*OPTIMIZER, "other_kwargs", 0),
            f"optimizer_kwargs `nesterov` is ignored: {sgd}",
            "remove `nesterov`",
        ),
    ]
    assert lint(
        "Adagrad",
        'kwargs { key: "epsilon" value: 0.1 } kwargs { key: "eps" value: 0.2 } '
        'kwargs { key: "lr_decay" value: 0.1 } '
        'kwargs { key: "initial_accumulator_value" value: 0.1 }',
    ) == [
        (
            (*OPTIMIZER, "kwargs", "eps"),
            "optimizer_kwargs `eps` is given together with `epsilon`: the collection renames "
            "`epsilon` to `eps` over it, so `eps` 0.2 is ignored and `epsilon` 0.1 is used",
            "give `eps` once",
        ),
        (
            (*OPTIMIZER, "kwargs", "lr_decay"),
            "optimizer_kwargs `lr_decay` is ignored: the fused collection reads only `lr`, `eps` "
            "and `initial_accumulator_value` for Adagrad, so its tables train without it",
            "remove `lr_decay`",
        ),
    ]


def test_what_it_reads_under_either_name_and_the_defaults_that_agree() -> None:
    assert (
        lint(
            "Adam",
            'kwargs { key: "learning_rate" value: 0.1 } kwargs { key: "epsilon" value: 1e-08 } '
            'other_kwargs: "betas"',
        )
        == []
    )
    # Adagrad's defaults are torch.optim.Adagrad's: lr 0.01, eps 1e-10, accumulators at 0.
    assert lint("Adagrad", "") == []
    # An optimizer the collection refuses is torchrec-unsupported-optimizer's; no collection, none.
    assert lint("AdamW", 'kwargs { key: "weight_decay" value: 0.01 }') == []
    assert findings_of_rule("TE855", TABLE) == []
