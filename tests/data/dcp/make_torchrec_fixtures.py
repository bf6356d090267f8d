"""Writes the DCP checkpoints of ``torchrec/``: the state dict a TorchRec fused collection of
``torchrec/spec.pbtxt`` saves (torchrec 1.9.2, ``_SparseCoreFusedEmbeddingBase.__init__``:
``embedding_bags.<stack>.weight``, ``accumulators.<stack>``, ``learning_rates.<stack>``), saved by
torch's ``dcp.save`` with ``make_fixtures.SparseCoreLikeSavePlanner`` (torchrec's
``SparseCoreSavePlanner.create_global_plan``, line for line) or the default planner. Only each
checkpoint's ``.metadata`` is kept, as ``torchrec/<case>/.metadata``.

The stacked configs are ``torchrec/stacked_configs.json``: the spec's stacks for 1 x 2 and 2 x 2
(devices x SparseCores a device), as tpuemb's port of ``table_stacking`` computes them and
``StackedSparseCoreEmbeddingConfig.to_dict()`` writes them (tests/test_torchrec_diff.py checks
that they are). Run in a scratch venv with torch, never by the test suite::

    /tmp/dcp-venv/bin/python tests/data/dcp/make_torchrec_fixtures.py
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp
from make_fixtures import SparseCoreLikeSavePlanner  # type: ignore[import-not-found]
from torch.distributed.checkpoint import FileSystemWriter

HERE = Path(__file__).resolve().parent / "torchrec"
CONFIGS: dict[str, dict[str, Any]] = json.loads((HERE / "stacked_configs.json").read_text())
PREFIX = "model.sparse."


def _state(configs: dict[str, Any], slots: tuple[str, ...], wrap: Any = None) -> dict[str, Any]:
    """The fused collection's state dict under ``PREFIX``: each stack's weight and optimizer
    state of its global shape (``wrap`` shards them, as the module's DTensors are), and its
    0-d learning rate."""
    state: dict[str, Any] = {}
    for name, config in configs.items():
        shape = (config["stack_num_embeddings"], config["stack_embedding_dim"])
        tensors = {f"embedding_bags.{name}.weight": torch.zeros(shape)}
        for slot in slots:
            tensors[f"{slot}.{name}"] = torch.zeros(shape)
        for key, tensor in tensors.items():
            state[PREFIX + key] = wrap(tensor) if wrap is not None else tensor
        state[f"{PREFIX}learning_rates.{name}"] = torch.tensor(0.1)
    return state


def _save(folder: Path, state: dict[str, Any], planner: Any) -> None:
    dcp.save(state, storage_writer=FileSystemWriter(str(folder)), planner=planner)


def _worker(rank: int, world: int, folder: str, init: str, with_configs: bool) -> None:
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard, distribute_tensor

    mesh = init_device_mesh("cpu", (world,))
    configs = CONFIGS["2x2"]
    state = _state(configs, ("accumulators",), lambda t: distribute_tensor(t, mesh, [Shard(0)]))
    planner = SparseCoreLikeSavePlanner(2, configs if with_configs else None)
    _save(Path(folder), state, planner)
    dist.destroy_process_group()


def _two_devices(with_configs: bool) -> Any:
    def make(folder: Path) -> None:
        init = f"file://{folder.parent / 'rendezvous'}"
        mp.spawn(_worker, args=(2, str(folder), init, with_configs), nprocs=2, join=True)

    return make


def _two_collections(folder: Path) -> None:
    # Two collections of one model, each with one of the spec's stacks.
    state = {
        "user.embedding_bags.a_b.weight": torch.zeros(144, 8),
        "item.embedding_bags.c.weight": torch.zeros(64, 16),
    }
    _save(folder, state, SparseCoreLikeSavePlanner(2, None))


def main() -> None:
    one = CONFIGS["1x2"]
    cases = {
        # The spec's own collection on its own topology, with its stacked configs.
        "same": lambda f: _save(
            f, _state(one, ("accumulators",)), SparseCoreLikeSavePlanner(2, one)
        ),
        # The same state, saved by the default planner: no planner_data["sparsecore"].
        "default": lambda f: _save(f, _state(one, ("accumulators",)), None),
        # An SGD collection's: no optimizer state.
        "sgd": lambda f: _save(f, _state(one, ()), SparseCoreLikeSavePlanner(2, one)),
        # Two processes of two SparseCores each: world size 2, with and without stacked configs.
        "topology": _two_devices(True),
        "topology_bare": _two_devices(False),
        "two_collections": _two_collections,
    }
    with tempfile.TemporaryDirectory() as scratch:
        for case, make in cases.items():
            folder = Path(scratch) / case / "ckpt"
            folder.mkdir(parents=True)
            make(folder)
            (HERE / case).mkdir(exist_ok=True)
            shutil.copyfile(folder / ".metadata", HERE / case / ".metadata")


if __name__ == "__main__":
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    main()
