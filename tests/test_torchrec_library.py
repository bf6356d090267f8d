"""Checks tests/torchrec_library.py, the library side of the TorchRec oracle, against a few
hand-computed expectations, and runs every case of tests/torchrec_cases.py through it without the
harness crashing. Runs only where torchrec 1.9.2 is installed (build/venv-torchrec):

    PYTHONPATH=. build/venv-torchrec/bin/python -m pytest -q -p no:cacheprovider \\
        tests/test_torchrec_library.py

Elsewhere (the project's normal run, no torch) the module is skipped.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchrec")

from tests import torchrec_library as lib
from tests.torchrec_cases import by_id, cases, checkpoint_cases

BY_ID = by_id()


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    return {c["id"]: lib.run_library(c) for c in cases()}


def _stack(res: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in res["stacks"] if s["stack_name"] == name)


def test_cases_are_many_unique_and_json() -> None:
    cs = cases()
    assert len(cs) >= 60
    assert len({c["id"] for c in cs}) == len(cs)
    assert json.loads(json.dumps(cs)) == cs
    assert cases() == cs  # deterministic


def test_every_case_runs_without_the_harness_crashing(results: dict[str, dict[str, Any]]) -> None:
    for cid, res in results.items():
        refused = res["refused"]
        assert refused is None or refused["where"] != "harness", (cid, refused)
        json.dumps(res)  # JSON-able


def test_two_table_stack_layout(results: dict[str, dict[str, Any]]) -> None:
    # 1 device x 2 SCs: vocab rounds up to 16; a 10 -> 16 (8 rows per SC), b 33 -> 48.
    s = _stack(results["stack2_offsets"], "a_b")
    assert s["padded_vocab_sizes"] == {"a": 16, "b": 48}
    assert s["row_offsets_in_shard"] == {"a": 0, "b": 8}
    assert s["stack_num_embeddings"] == 64
    assert s["padded_embedding_dims"] == {"a": 8, "b": 8}
    assert s["total_sample_count_multiplier"] == 1 + 2  # features of a and of b
    assert s["shard_rotations"] == {"a": 0, "b": 0}  # rot_step 2 modulo 2 SCs


def test_default_rotation_steps_by_sparsecores_per_device(
    results: dict[str, dict[str, Any]],
) -> None:
    s = results["stack_default_rot_g8s4"]["stacks"][0]
    assert s["shard_rotations"] == {f"t{i}": (4 * i) % 32 for i in range(10)}
    assert s["row_offsets_in_shard"] == {f"t{i}": 16 * i for i in range(10)}  # 512 / 32


def test_named_rotated_stack(results: dict[str, dict[str, Any]]) -> None:
    s = _stack(results["stack_named_rot1_g4s4"], "user_stack")
    assert s["padded_vocab_sizes"] == {"a": 128, "b": 256, "c": 128}
    assert s["shard_rotations"] == {"a": 0, "b": 1, "c": 2}
    assert s["row_offsets_in_shard"] == {"a": 0, "b": 8, "c": 24}
    assert s["stack_embedding_dim"] == 16
    # dims 12 -> 16, 16, 3 -> 8: (16 - 8) * 128 excess values, logged, not raised
    assert results["stack_named_rot1_g4s4"]["warnings"] == [
        "WARNING during stack_tables: Excess padding detected for stacked table user_stack:"
        " 1024 values."
    ]


def test_long_names_are_shortened_with_sha256(results: dict[str, dict[str, Any]]) -> None:
    names = [t["name"] for t in BY_ID["auto_long_names_short"]["tables"]]
    joined = "_".join(sorted(names))
    want = joined[:50] + "_" + hashlib.sha256(joined.encode()).hexdigest()[:12]
    assert [s["stack_name"] for s in results["auto_long_names_short"]["stacks"]] == [want]
    assert [s["stack_name"] for s in results["auto_long_names_full"]["stacks"]] == [joined]
    assert results["stack_name_exactly_50"]["stacks"][0]["stack_name"] == "a" * 24 + "_" + "b" * 25


def test_auto_stack_split_is_first_fit(results: dict[str, dict[str, Any]]) -> None:
    assert results["auto_split_first_fit"]["call_results"] == [
        {"call": "auto_stack_tables", "stacks": ["a_c", "b_d"]}
    ]
    assert len(results["auto_limit_zero"]["stacks"]) == 4
    assert len(results["auto_limit_zero_batch1"]["stacks"]) == 1  # 1 * 1 // 2 = 0 bytes


def test_refusals(results: dict[str, dict[str, Any]]) -> None:
    r = results["bare_string_user"]["refused"]
    assert r["where"] == "stack_tables" and r["type"] == "ValueError"
    assert r["message"].startswith("Table names not found in tables list: {")
    assert sorted(r["message"].split("{")[1].rstrip("}").replace("'", "").split(", ")) == [
        "e",
        "r",
        "s",
        "u",
    ]
    r = results["empty_table_names"]["refused"]
    assert (r["type"], r["message"]) == ("IndexError", "list index out of range")
    assert r["raised_at"] == (
        "torchrec/experimental/torch_tpu/modules/table_stacking.py:169 stack_tables"
    )
    r = results["excess_padding_fail"]["refused"]
    assert r["message"] == "Excess padding detected for stacked table a_b: 384 values."
    r = results["batch_not_divisible"]["refused"]
    assert r["message"] == "batch_size (6) must be divisible by num_sc_per_device (4)."
    assert results["batch_not_divisible"]["weights_built_before_refusal"] == []


def test_unsupported_optimizer_is_refused_after_a_weight(
    results: dict[str, dict[str, Any]],
) -> None:
    res = results["optimizer_adamw"]
    assert res["refused"]["where"] == "constructor"
    assert res["refused"]["raised_at"].endswith("fused_embedding_modules.py:557 __init__")
    assert res["weights_built_before_refusal"] == ["a"]


def test_accepted_mistakes(results: dict[str, dict[str, Any]]) -> None:
    assert results["bare_string_substring"]["stacks"][0]["stack_name"] == "a_b"
    two = results["same_name_two_stacks"]
    assert two["refused"] is None
    assert two["module"]["stack_names"] == ["s"]
    assert two["module"]["unstacked_shapes"] == {"a": [16, 8]}  # b has no weight at all


def test_module_contents(results: dict[str, dict[str, Any]]) -> None:
    m = results["module_bag_adagrad_aliases"]["module"]
    assert m["optimizer_kwargs"] == {"initial_accumulator_value": 0.25, "lr": 0.3, "eps": 1e-6}
    assert m["accumulator_fill"] == {"a_b": 0.25}
    assert m["state_dict"] == {
        "learning_rates.a_b": [],
        "embedding_bags.a_b.weight": [320, 16],
        "accumulators.a_b": [320, 16],
    }
    m = results["module_bag_g4s4_local"]["module"]
    assert m["weights"]["a_b"]["local_shape"] == [1152 // 4, 32]
    assert m["unstacked_shapes"] == {"a": [250, 32], "b": [2, 32]}
    assert results["module_default_lr"]["module"]["learning_rates"] == {"a": pytest.approx(0.01)}


def test_standin_restores_the_module_globals() -> None:
    import torch
    import torch.distributed.tensor as dt

    fem = importlib.import_module(lib.FUSED_NAME)
    with lib.tpu_is_cpu():
        assert fem.torch is not torch
        assert fem.torch.device("tpu") == torch.device("cpu")
    assert fem.torch is torch and fem.dt is dt


def _ck(cid: str) -> dict[str, Any]:
    return next(c for c in checkpoint_cases() if c["id"] == cid)


def _save_load(tmp_path: Path, cid: str) -> dict[str, Any]:
    c = _ck(cid)
    saved = lib.save_checkpoint(c["save"], tmp_path / "ck")
    assert saved["error"] is None, saved["error"]
    return lib.load_checkpoint(
        c["save"], c["load"], tmp_path / "ck", c["unshard_for_cpu"], c.get("into_fused")
    )


def test_same_topology_reload_is_exact(tmp_path: Path) -> None:
    res = _save_load(tmp_path, "same_module")
    assert res["error"] is None
    assert {t: v["right"] for t, v in res["tables"].items()} == {"a": 16, "b": 20}


def test_unshard_for_cpu_permutes_block_sharded_rows(tmp_path: Path) -> None:
    # The module lays SparseCore s's chunk out as table rows s*c .. s*c+c-1 (blocks); the
    # planner reads SparseCore s's row r as table row r*N + s (mod). So CPU row k holds saved
    # row (k % N) * c + k // N, and is zero when that is a padding row.
    res = _save_load(tmp_path, "same_unshard_cpu")
    assert res["error"] is None
    n = 2
    for name, padded, rows in (("a", 16, 16), ("b", 32, 20)):
        c = padded // n
        want = []
        for k in range(rows):
            src = (k % n) * c + k // n
            want.append([name, src] if src < rows else None)
        assert res["tables"][name]["rows_from"] == want


def test_one_sparsecore_unshards_right(tmp_path: Path) -> None:
    res = _save_load(tmp_path, "s1_unshard_cpu")
    assert {t: v["wrong"] + v["unset"] for t, v in res["tables"].items()} == {"a": 0, "b": 0}


def test_unshard_into_a_fused_stack_overlaps_tables(tmp_path: Path) -> None:
    # The CPU re-pack (planners.py:441-448) keeps the saved per-SparseCore row offsets (b at 8)
    # but uses num_shards=1, where a takes 16 rows: b overwrites a's rows 8..15.
    res = _save_load(tmp_path, "unshard_into_fused_s1")
    assert res["error"] is None
    a = res["tables"]["a"]["rows_from"]
    assert [r[0] for r in a[8:]] == ["b"] * 8
    assert a[:8] == [["a", (k % 2) * 8 + k // 2] for k in range(8)]


def test_every_checkpoint_case_runs(tmp_path: Path) -> None:
    for k, c in enumerate(checkpoint_cases()):
        d = tmp_path / f"ck{k}"
        saved = lib.save_checkpoint(c["save"], d)
        assert saved["error"] is None, (c["id"], saved["error"])
        loaded = lib.load_checkpoint(
            c["save"], c["load"], d, c["unshard_for_cpu"], c.get("into_fused")
        )
        assert loaded["error"] is None or loaded["error"]["where"] == "load", c["id"]
        json.dumps(loaded)


@pytest.mark.slow
def test_two_process_save_records_world_size(tmp_path: Path) -> None:
    c = _ck("same_module")["save"]
    c = json.loads(json.dumps(c))
    c["stack_calls"] = [dict(c["stack_calls"][0], global_device_count=2)]
    c["module"]["global_device_count"] = 2
    res = lib.save_checkpoint_multiprocess(c, tmp_path / "ck", 2, port=29561)
    assert res["error"] is None, res["error"]
    assert [r["planner_data"]["sparsecore"]["world_size"] for r in res["ranks"]] == [2, 2]
    assert res["ranks"][0]["metadata_sizes"]["embedding_bags.a_b.weight"] == [64, 8]
