"""The oracle for `tpuemb diff`: TensorFlow itself saves a checkpoint under the old side of each
pair (compat_pairs.py) and restores it under the new one, and what it does must be what tpuemb
says. Needs TensorFlow (`make test-tf` installs it); skipped without it.

TPUEmbeddingForServing on CPU creates the variables TPU training creates (``<table>`` and
``<table>/<slot>``, tensorflow/python/tpu/tpu_embedding_base.py). Every variable gets random
values before the save, so a restored variable is told apart from one left at its initializer
and from one that got another table's values. Observed, per pair:

- restore-error: ``restore()`` raises;
- silent-reinit: a new variable does not hold what the same table's same variable held when
  saved (fresh, or another table's), and ``assert_existing_objects_matched()`` raises when one
  is fresh;
- orphaned-state: the checkpoint holds a variable the new model does not have, and
  ``assert_consumed()`` raises.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .compat_pairs import PAIRS, STATE_KINDS, Pair, diff
from .tf_embedding import build, raises

tf = pytest.importorskip("tensorflow")
np = pytest.importorskip("numpy")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _variables(embedding: Any, ids: dict[str, str]) -> dict[tuple[str, str], Any]:
    """(table id, variable) -> the variable, for the parameters and every slot."""
    return {
        (ids[name], slot): variable
        for name, slots in embedding._variables.items()
        for slot, variable in slots.items()
    }


def _keys(path: str) -> set[str]:
    return {name for name, _ in tf.train.list_variables(path) if name.startswith("embedding/")}


def observe(pair: Pair, folder: Path) -> set[str]:
    """The kinds TensorFlow shows for the pair."""
    old, old_ids = build(pair.old)
    saved = {}
    rng = np.random.default_rng(0)
    for key, variable in _variables(old, old_ids).items():
        value = rng.standard_normal(variable.shape).astype("float32")
        variable.assign(value)
        saved[key] = value
    path = tf.train.Checkpoint(embedding=old).save(str(folder / "old" / "ckpt"))
    new, new_ids = build(pair.new)
    fresh_path = tf.train.Checkpoint(embedding=new).save(str(folder / "new" / "ckpt"))
    try:
        status = tf.train.Checkpoint(embedding=new).restore(path)
    except (ValueError, tf.errors.InvalidArgumentError) as problem:
        assert "incompatible tensor with shape" in str(problem) or "shape" in str(problem)
        return {"restore-error"}
    found = set()
    for key, variable in _variables(new, new_ids).items():
        held = saved.get(key)
        # Fresh (no such variable saved), or restored from another table's or slot's values.
        same = held is not None and held.shape == tuple(variable.shape)
        if not same or not np.array_equal(variable.numpy(), held):
            found.add("silent-reinit")
    missing = _keys(fresh_path) - _keys(path)
    orphaned = _keys(path) - _keys(fresh_path)
    if orphaned:
        found.add("orphaned-state")
    # The assertions users have agree with what the values and keys say.
    assert raises(status.assert_existing_objects_matched) == bool(missing)
    assert raises(status.assert_consumed) == bool(missing or orphaned)
    return found


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.name)
def test_tensorflow_restores_as_tpuemb_says(pair: Pair, tmp_path: Path) -> None:
    observed = observe(pair, tmp_path)
    for as_configs in (False, True):
        said = {change.kind for change in diff(pair, as_configs)} & set(STATE_KINDS)
        if "restore-error" in observed:
            # The restore stops at the first shape that differs: nothing else is observed.
            assert "restore-error" in said, (as_configs, said)
        else:
            assert said == observed, (as_configs, said, observed)


def test_the_oracle_sees_each_kind(tmp_path: Path) -> None:
    # An oracle that never sees a kind cannot check it.
    seen: set[str] = set()
    for number, pair in enumerate(PAIRS):
        if pair.name in ("dim", "rename", "adam-to-sgd", "swap-unnamed"):
            seen |= observe(pair, tmp_path / str(number))
    assert seen == set(STATE_KINDS)
