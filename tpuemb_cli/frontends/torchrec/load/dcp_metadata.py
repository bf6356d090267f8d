"""The ``.metadata`` of a PyTorch distributed checkpoint (``torch.distributed.checkpoint``, DCP),
read without torch and without unpickling.

``FileSystemWriter.finish`` (``torch/distributed/checkpoint/filesystem.py``, torch 2.13.0) writes
``<checkpoint>/.metadata`` with ``pickle.dump(metadata, file)`` -- Python's default protocol, 4
(5 from Python 3.14) -- beside ``__<rank>_<n>.distcp`` files that hold the tensors. The pickle
is a ``Metadata`` (``torch/distributed/checkpoint/metadata.py``) and is read here by
``load.pickles``, which imports and calls nothing; this module takes the walked records
apart, field by field, into plain records:

- ``state_dict_metadata``: each key (the flattened state dict's dotted name) to a
  ``TensorEntry`` -- the dtype (``torch.float32`` written as its name, ``float32``), the global
  size, and the chunks written (each its offsets and sizes: one chunk for a plain tensor, one a
  shard for a ``DTensor`` or ``ShardedTensor``) -- or a ``BytesEntry`` (a value ``torch.save``\\ d
  into the data files: an int, a string, a list ...; its value is not in ``.metadata``);
- ``planner_data``: as written, plain data (dicts, lists, tuples, strings, numbers) as
  ``pickle.loads`` would give it, anything else as ``load.pickles``' records. The default save
  planner writes the flattening mapping (each dotted key -> its path as a tuple); torchrec
  1.9.2's ``SparseCoreSavePlanner`` (``torchrec/experimental/torch_tpu/checkpoint/planners.py``)
  adds ``planner_data["sparsecore"]``: ``world_size``, ``num_sc_per_device`` and, when the
  planner was given them, ``stacked_configs`` (stack name -> ``StackedSparseCoreEmbeddingConfig.
  to_dict()``), which ``DcpMetadata.sparsecore`` returns;
- ``storage_meta``: ``checkpoint_id`` (the path it was saved to, as text), ``save_id``,
  ``load_id``, ``modules``; and ``version`` (``"1.0.0"`` in torch 2.13).

Not read: ``storage_data`` (which ``.distcp`` file and byte range holds each chunk), the tensors'
values, ``TensorProperties``' deprecated fields (layout, ``requires_grad``, memory format, pinned
memory), a rank-local ``__<rank>.metadata`` (written when a save does not coordinate ranks), and
checkpoints saved by other storage writers. What does not have the shape above is an
``UnreadableDcpMetadata`` naming the file and the field; so is every ``PickleError``.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from tpuemb_cli.load.pickles import Global, Object, PickleError, limits, walk
from tpuemb_cli.load.regular_file import read_regular
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import printable

METADATA_NAME = ".metadata"
_MODULE = "torch.distributed.checkpoint.metadata"
_PATHS = {
    "PosixPath": PurePosixPath,
    "PurePosixPath": PurePosixPath,
    "WindowsPath": PureWindowsPath,
    "PureWindowsPath": PureWindowsPath,
}


class UnreadableDcpMetadata(PickleError):
    """A file that is not a DCP ``.metadata`` tpuemb reads; the message names the file, the field
    and why."""


class Chunk(Record):
    """One chunk of a tensor as saved: where it starts in the global tensor, and its sizes."""

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]


class TensorEntry(Record):
    """A tensor of the state dict: its dtype (``float32``, ``bfloat16``, ``int64``...), global
    size and chunks."""

    dtype: str
    size: tuple[int, ...]
    chunks: tuple[Chunk, ...]


class BytesEntry(Record):
    """A value of the state dict saved as bytes (no tensor): nothing about it is in
    ``.metadata`` but its key."""


class StorageMeta(Record):
    checkpoint_id: str | None
    save_id: str | None
    load_id: str | None
    modules: tuple[str, ...]


class DcpMetadata(Record):
    """A ``.metadata`` file, read: ``file`` it was read from, ``entries`` in the order saved."""

    file: str
    entries: dict[str, TensorEntry | BytesEntry]
    planner_data: object
    storage_meta: StorageMeta | None
    version: str | None

    @property
    def sparsecore(self) -> dict[object, object] | None:
        """``planner_data["sparsecore"]`` as torchrec's ``SparseCoreSavePlanner`` writes it, when
        it is a dict."""
        if isinstance(self.planner_data, dict):
            found = self.planner_data.get("sparsecore")
            if isinstance(found, dict):
                return found
        return None


def read_dcp_metadata(path: str | Path) -> DcpMetadata:
    """The ``.metadata`` of the checkpoint folder ``path``, or the file ``path`` itself."""
    file = Path(path)
    if file.is_dir():
        file = file / METADATA_NAME
    data = read_regular(file, limits.MAX_INPUT_BYTES, UnreadableDcpMetadata, "a checkpoint")
    return dcp_metadata(data, printable(str(file)))


def dcp_metadata(data: bytes, name: str) -> DcpMetadata:
    """The ``.metadata`` whose bytes are ``data``; ``name`` is its file's, for messages."""
    try:
        root = walk(data, name)
    except UnreadableDcpMetadata:
        raise
    except PickleError as error:
        raise UnreadableDcpMetadata(str(error)) from None
    return _Reader(name).metadata(root)


class _Reader:
    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, why: str) -> UnreadableDcpMetadata:
        return UnreadableDcpMetadata(
            f"{self.name}: {where}: {why}; not the .metadata of a torch.distributed.checkpoint "
            "as torch 2.13 writes it"
        )

    def state(self, value: object, cls: str, where: str) -> dict[object, object]:
        """The state ``BUILD`` gave a dataclass ``cls`` of DCP's metadata module."""
        if not isinstance(value, Object) or value.cls != Global(_MODULE, cls):
            raise self.fail(where, f"a {_what(value)}, where a {cls} is written")
        state = value.state
        if isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], dict):
            state = state[0]  # (dict, slots)
        if not isinstance(state, dict):
            raise self.fail(where, f"a {cls} whose state is a {_what(state)}, not a dict")
        return state

    def metadata(self, root: object) -> DcpMetadata:
        state = self.state(root, "Metadata", "the pickle")
        entries_written = state.get("state_dict_metadata")
        if not isinstance(entries_written, dict):
            raise self.fail("state_dict_metadata", f"a {_what(entries_written)}, not a dict")
        entries: dict[str, TensorEntry | BytesEntry] = {}
        for key, entry in entries_written.items():
            if not isinstance(key, str):
                raise self.fail("state_dict_metadata", f"a key that is a {_what(key)}")
            entries[key] = self.entry(entry, f"state_dict_metadata[{key!r}]")
        version = state.get("version")
        if version is not None and not isinstance(version, str):
            raise self.fail("version", f"a {_what(version)}, not a string")
        meta = state.get("storage_meta")
        return DcpMetadata(
            file=self.name,
            entries=entries,
            planner_data=state.get("planner_data"),
            storage_meta=None if meta is None else self.storage_meta(meta),
            version=version,
        )

    def entry(self, value: object, where: str) -> TensorEntry | BytesEntry:
        if isinstance(value, Object) and value.cls == Global(_MODULE, "BytesStorageMetadata"):
            return BytesEntry()
        state = self.state(value, "TensorStorageMetadata", where)
        chunks = state.get("chunks")
        if not isinstance(chunks, list):
            raise self.fail(f"{where}.chunks", f"a {_what(chunks)}, not a list")
        return TensorEntry(
            dtype=self.dtype(state.get("properties"), f"{where}.properties"),
            size=self.size(state.get("size"), f"{where}.size"),
            chunks=tuple(
                self.chunk(chunk, f"{where}.chunks[{i}]") for i, chunk in enumerate(chunks)
            ),
        )

    def dtype(self, value: object, where: str) -> str:
        if not isinstance(value, Object) or value.cls != Global(_MODULE, "TensorProperties"):
            raise self.fail(where, f"a {_what(value)}, where a TensorProperties is written")
        state = value.state
        # TensorProperties.__getstate__ writes (dtype, layout, requires_grad, memory format,
        # pin_memory); a torch before it (2.0) wrote the dataclass's __dict__.
        dtype = state[0] if isinstance(state, tuple) and state else None
        if isinstance(state, dict):
            dtype = state.get("dtype")
        if not isinstance(dtype, Global) or dtype.module != "torch":
            raise self.fail(f"{where}.dtype", f"a {_what(dtype)}, not a torch dtype")
        return dtype.name

    def size(self, value: object, where: str) -> tuple[int, ...]:
        # torch.Size pickles as REDUCE torch.Size((d0, d1, ...)).
        if (
            isinstance(value, Object)
            and value.cls == Global("torch", "Size")
            and len(value.args) == 1
            and isinstance(value.args[0], tuple)
            and all(type(d) is int and d >= 0 for d in value.args[0])
            and not value.built
        ):
            return value.args[0]
        raise self.fail(where, f"a {_what(value)}, not a torch.Size of sizes")

    def chunk(self, value: object, where: str) -> Chunk:
        state = self.state(value, "ChunkStorageMetadata", where)
        return Chunk(
            offsets=self.size(state.get("offsets"), f"{where}.offsets"),
            sizes=self.size(state.get("sizes"), f"{where}.sizes"),
        )

    def storage_meta(self, value: object) -> StorageMeta:
        state = self.state(value, "StorageMeta", "storage_meta")
        texts: dict[str, str | None] = {}
        for field in ("save_id", "load_id"):
            found = state.get(field)
            if found is not None and not isinstance(found, str):
                raise self.fail(f"storage_meta.{field}", f"a {_what(found)}, not a string")
            texts[field] = found
        modules = state.get("modules", [])
        if not isinstance(modules, list) or not all(isinstance(m, str) for m in modules):
            raise self.fail("storage_meta.modules", "not a list of strings")
        return StorageMeta(
            checkpoint_id=self.path(state.get("checkpoint_id")),
            save_id=texts["save_id"],
            load_id=texts["load_id"],
            modules=tuple(modules),
        )

    def path(self, value: object) -> str | None:
        if value is None or isinstance(value, str):
            return value
        # A pathlib path pickles as REDUCE pathlib.PosixPath(*parts): joined here as text,
        # by the pure path class of its flavour (nothing of the pickle's is called).
        if (
            isinstance(value, Object)
            and value.cls is not None
            and value.cls.module == "pathlib"
            and value.cls.name in _PATHS
            and all(isinstance(part, str) for part in value.args)
        ):
            return os.fspath(_PATHS[value.cls.name](*value.args))  # type: ignore[arg-type]
        raise self.fail("storage_meta.checkpoint_id", f"a {_what(value)}, not a path")


def _what(value: object) -> str:
    if isinstance(value, Object):
        return f"{value.callable}(...)" if value.cls is not None else "object"
    if isinstance(value, Global):
        return f"reference to {value}"
    return type(value).__name__
