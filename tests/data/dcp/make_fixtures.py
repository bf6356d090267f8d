"""Writes the DCP checkpoints whose ``.metadata`` files are this folder's fixtures, and
``expected.json``: what torch itself loads from each (``pickle.load`` of the file, as
``FileSystemReader.read_metadata`` does), written out as plain JSON.

Run in a scratch venv with torch, never by the test suite::

    python3 -m venv /tmp/dcp-venv
    /tmp/dcp-venv/bin/pip install torch==2.13.0  # the CPU build, 2.13.0+cpu, was used
    /tmp/dcp-venv/bin/python tests/data/dcp/make_fixtures.py

Each checkpoint is written under a temporary folder; only its ``.metadata`` is kept, as
``<case>.metadata`` (the ``__<rank>_0.distcp`` files hold the tensors and are not needed).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp
from torch.distributed.checkpoint import FileSystemWriter, default_planner
from torch.distributed.checkpoint import metadata as metadata_mod

HERE = Path(__file__).resolve().parent


class SparseCoreLikeSavePlanner(default_planner.DefaultSavePlanner):  # type: ignore[misc]
    """``create_global_plan`` of torchrec 1.9.2's ``SparseCoreSavePlanner``
    (``torchrec/experimental/torch_tpu/checkpoint/planners.py``), line for line; torchrec itself
    does not import beside torch 2.13 (its ``distributed/types.py`` needs fbgemm_gpu). The
    stacked configs are passed as the dict ``serialize_stacked_configs`` returns as it is."""

    def __init__(self, num_sc_per_device: int = 2, stacked_configs: Any = None) -> None:
        super().__init__()
        self.num_sc_per_device = num_sc_per_device
        self.stacked_configs = stacked_configs

    def create_global_plan(self, all_plans: Any) -> Any:
        global_plan, metadata = super().create_global_plan(all_plans)
        world_size = dist.get_world_size() if dist.is_initialized() else 1
        sparsecore_metadata: dict[str, Any] = {
            "world_size": world_size,
            "num_sc_per_device": self.num_sc_per_device,
        }
        if self.stacked_configs is not None:
            sparsecore_metadata["stacked_configs"] = self.stacked_configs
        loaded_planner_data = metadata.planner_data or {}
        if isinstance(loaded_planner_data, dict):
            loaded_planner_data["sparsecore"] = sparsecore_metadata
            metadata = dataclasses.replace(metadata, planner_data=loaded_planner_data)
        return global_plan, metadata


def _table(name: str, rows: int, dim: int, offset: int, rotation: int) -> dict[str, Any]:
    # The keys of StackedSparseCoreEmbeddingConfig.to_dict's tables_info (torchrec 1.9.2,
    # modules/embedding_configs.py), for a bag table.
    return {
        "name": name,
        "num_embeddings": rows,
        "embedding_dim": dim,
        "is_bag": True,
        "pooling": "SUM",
        "max_seq_len": None,
        "feature_names": [f"f_{name}"],
        "padded_vocab_size": rows + (-rows % 8),
        "padded_embedding_dim": dim + (-dim % 8),
        "row_offset_in_shard": offset,
        "shard_rotation": rotation,
    }


def _stack(name: str, tables: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "stack_name": name,
        "stack_table_name": name,
        "feature_names": [f for t in tables for f in t["feature_names"]],
        "stack_num_embeddings": sum(t["padded_vocab_size"] for t in tables),
        "stack_embedding_dim": max(t["padded_embedding_dim"] for t in tables),
        "total_sample_count_multiplier": len(tables),
        "row_offsets_in_shard": {t["name"]: t["row_offset_in_shard"] for t in tables},
        "shard_rotations": {t["name"]: t["shard_rotation"] for t in tables},
        "padded_vocab_sizes": {t["name"]: t["padded_vocab_size"] for t in tables},
        "padded_embedding_dims": {t["name"]: t["padded_embedding_dim"] for t in tables},
        "tables": tables,
    }


STACKS = {
    "a_b": _stack("a_b", [_table("a", 100, 8, 0, 0), _table("b", 30, 5, 13, 1)]),
    "c": _stack("c", [_table("c", 64, 16, 0, 0)]),
}


def _plain() -> dict[str, Any]:
    return {
        "weight": torch.zeros(4, 3),
        "ids": torch.arange(5, dtype=torch.int64),
        "half": torch.ones(2, 2, dtype=torch.bfloat16),
        "scalar": torch.tensor(3.0, dtype=torch.float64),
    }


def _nested() -> dict[str, Any]:
    return {
        "model": {"emb": {"weight": torch.zeros(10, 4)}, "bias": torch.zeros(4)},
        "optim": {"step": 7, "lr": 0.5, "name": "adagrad", "blob": b"\x00\x01"},
        "epochs": [1, 2],
    }


def _sparsecore() -> dict[str, Any]:
    return {
        "sparse.embedding_bags.a_b.weight": torch.zeros(136, 8),
        "sparse.accumulators.a_b": torch.zeros(136, 8),
        "sparse.embedding_bags.c.weight": torch.zeros(64, 16),
    }


def _save(folder: Path, state: dict[str, Any], planner: Any = None) -> None:
    dcp.save(state, storage_writer=FileSystemWriter(str(folder)), planner=planner)


def _sharded_worker(rank: int, world: int, folder: str, init: str) -> None:
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    mesh = init_device_mesh("cpu", (world,))
    full = torch.arange(40, dtype=torch.float32).reshape(10, 4)
    state = {
        "rows": distribute_tensor(full, mesh, [Shard(0)]),
        "cols": distribute_tensor(torch.zeros(3, 6), mesh, [Shard(1)]),
        "replicated": distribute_tensor(torch.zeros(5), mesh, [Replicate()]),
        "plain": torch.ones(2),
    }
    planner = SparseCoreLikeSavePlanner(num_sc_per_device=4, stacked_configs=None)
    dcp.save(state, storage_writer=FileSystemWriter(folder), planner=planner)
    dist.destroy_process_group()


def _sharded(folder: Path) -> None:
    init = f"file://{folder.parent / 'rendezvous'}"
    mp.spawn(_sharded_worker, args=(2, str(folder), init), nprocs=2, join=True)


def _plain_json(value: Any) -> Any:
    """What torch loaded, as JSON: a dataclass by its class and fields, torch.Size as a list."""
    if isinstance(value, torch.Size):
        return list(value)
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, metadata_mod.TensorProperties):
        return {"dtype": str(value.dtype)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {"__class__": type(value).__name__}
        for item in dataclasses.fields(value):
            if type(value).__name__ == "Metadata" and item.name == "storage_data":
                continue
            out[item.name] = _plain_json(getattr(value, item.name))
        return out
    if isinstance(value, dict):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, os.PathLike):
        return {"__path__": os.fspath(value)}
    return value


def main() -> None:
    cases = {
        "plain": lambda folder: _save(folder, _plain()),
        "nested": lambda folder: _save(folder, _nested()),
        "sparsecore": lambda folder: _save(
            folder, _sparsecore(), SparseCoreLikeSavePlanner(2, STACKS)
        ),
        "sharded": _sharded,
    }
    expected: dict[str, Any] = {"torch": torch.__version__, "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory() as scratch:
        for case, make in cases.items():
            folder = Path(scratch) / case / "ckpt"
            folder.mkdir(parents=True)
            make(folder)
            shutil.copyfile(folder / ".metadata", HERE / f"{case}.metadata")
            with (folder / ".metadata").open("rb") as stream:
                loaded = pickle.load(stream)
            expected[case] = _plain_json(loaded)
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    main()
