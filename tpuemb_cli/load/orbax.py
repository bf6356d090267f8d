"""An Orbax checkpoint's items and arrays -- key paths, global shapes, shardings, the saved
``EmbeddingSpecProto`` -- read from its JSON files, without JAX, Orbax or tensorstore.

What orbax-checkpoint 0.12.8 writes (tests/data/orbax/README.md shows it file by file):

- a *step directory* (``<root>/<step>``, ``CheckpointManager``; or the directory a
  ``StandardCheckpointer`` was given), with ``_CHECKPOINT_METADATA`` (JSON): ``item_handlers``, a
  dict item -> handler class for a manager's step, a bare string for a single-item checkpoint
  (the step directory is then the item);
- per item saved by ``StandardCheckpointHandler`` / ``PyTreeCheckpointHandler``, ``_METADATA``
  (JSON ``tree_metadata``: each leaf's key path -- ``key_type`` 1 a sequence index, 2 a dict key
  -- and ``value_metadata``: ``value_type``, ``skip_deserialize``, ``write_shape``, one device's
  shard), and ``_sharding`` (JSON: base64 of the dotted parameter name -> a JSON string of its
  ``NamedSharding``: mesh axis sizes, axis names, partition spec);
- per item saved by ``ProtoCheckpointHandler``, the message as text (``proto.pbtxt`` unless the
  handler was given another file name);
- the arrays' values and zarr ``.zarray`` records (global shape, dtype) in an OCDBT store,
  zstd-compressed.

The global shape of an array is its ``write_shape`` times the mesh's size along each dimension's
sharded axes (``jax.sharding.NamedSharding``: a dimension split over axes ``a, b`` is split into
``|a| x |b|`` shards) -- unless the array is replicated over some mesh axis, which Orbax writes
in slices, one a replica: then, as for an array with no sharding recorded, only the store says.
Where the store is read (``load.orbax_store``, with the optional ``zstandard``), its ``.zarray``
gives the dtype and the shape, which must agree with the one derived.

Not read: the arrays' values, array_metadatas/, items of other handlers (their names and handlers
only), and checkpoints of Orbax before ``_CHECKPOINT_METADATA`` (0.5). Sources (orbax-checkpoint
v0.12.8): ``orbax/checkpoint/_src/metadata/tree.py`` (``_METADATA``, key types),
``_src/metadata/checkpoint.py`` (``_CHECKPOINT_METADATA``), ``_src/serialization/
type_handlers.py`` (``_sharding``), ``_src/path/step.py`` (step directories, the latest step).
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from tpuemb_cli.load.checkpoint_state import UnreadableCheckpoint, why
from tpuemb_cli.load.limits import shown
from tpuemb_cli.load.regular_file import read_regular
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import printable

CHECKPOINT_METADATA = "_CHECKPOINT_METADATA"
TREE_METADATA = "_METADATA"
SHARDING = "_sharding"
MANIFEST = "manifest.ocdbt"
# The JSON files are a few hundred bytes a leaf; this is ~100,000 leaves of tree metadata, and
# bounds what a file that only claims to be one makes tpuemb hold.
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_PROTO_BYTES = 64 * 1024 * 1024
# Items of a step, and steps of a root, looked at: a manager keeps a handful of each.
MAX_ITEMS = 1000
MAX_STEPS = 100_000
MAX_RANK = 64
# ``KeyType`` of orbax/checkpoint/_src/metadata/tree.py.
SEQUENCE, DICT = 1, 2
# A step directory's name, as Orbax's default step name format reads it (``_src/path/step.py``):
# ``<step>`` (no leading zero) or ``<prefix>_<step>`` (``step_prefix``); a step being written is
# ``<name>.orbax-checkpoint-tmp-<time>`` and never matches.
_STEP = re.compile(r"^(?:(?P<prefix>.+)_)?(?P<step>0|[1-9]\d{0,17})$")
_WRITING = ".orbax-checkpoint-tmp"
PROTO_HANDLER = "ProtoCheckpointHandler"

# What Orbax 0.12.8's strict restore says (``_src/tree/utils.py``, ``_src/serialization/
# jax_array_handlers.py``), which every front-end's finding quotes.
TREE_MISMATCH = (
    "Orbax: `User-provided restore item and on-disk value metadata tree structures do not match`"
)


def shape_mismatch(requested: tuple[int, ...], stored: tuple[int, ...]) -> str:
    return (
        f"Orbax: `Requested shape: {requested} is not compatible with the stored shape: {stored}`"
    )


Key = str | int
KeyPath = tuple[Key, ...]


class Sharding(Record):
    """A ``NamedSharding``: the mesh's axes and sizes, and per dimension the axes it is split
    over (empty: not split)."""

    axes: tuple[tuple[str, int], ...]
    spec: tuple[tuple[str, ...], ...]

    @property
    def replicated(self) -> bool:
        """Whether some mesh axis (of more than one device) splits no dimension: the array is
        replicated over it, and Orbax writes it in slices, one a replica (a ``(512, 8)`` table
        replicated on 8 devices has ``write_shape`` ``(64, 8)``, tests/data/orbax's
        keras_sparsecore_manager): its global shape is then the store's to say."""
        used = {axis for axes in self.spec for axis in axes}
        return any(size > 1 and axis not in used for axis, size in self.axes)

    def shards(self, dimension: int) -> int:
        sizes = dict(self.axes)
        if dimension >= len(self.spec):
            return 1
        return math.prod(sizes.get(axis, 1) for axis in self.spec[dimension])


class Array(Record):
    """One leaf of an item's tree. ``shape``: the global shape (None when no sharding or store
    says it); ``dtype`` (numpy's name) where the store was read; ``value_type`` as Orbax writes
    it (``jax.Array``, ``np.ndarray``, ``scalar``, ``None`` for an empty node it skips)."""

    path: KeyPath
    value_type: str
    write_shape: tuple[int, ...] | None
    shape: tuple[int, ...] | None
    sharding: Sharding | None = None
    dtype: str | None = None

    @property
    def name(self) -> str:
        """The dotted parameter name Orbax keys the array by in ``_sharding`` and the store."""
        return ".".join(str(key) for key in self.path)

    @property
    def skipped(self) -> bool:
        return self.value_type == "None"


class Item(Record):
    """An item of a step: its name ("" for a single-item checkpoint), handler (the class name),
    folder; ``arrays`` in the order written; ``proto``, for a ``ProtoCheckpointHandler``'s item,
    its file and text; ``store``: whether the OCDBT store was read, or why not."""

    name: str
    handler: str
    path: str
    arrays: tuple[Array, ...] = ()
    proto: tuple[str, str] | None = None
    store: str = ""


class OrbaxCheckpoint(Record):
    """A step directory, read. ``step``: its number (None for a checkpointer's directory that
    is no step); ``notes``: what was seen and not read, for the report."""

    path: str
    step: int | None
    items: tuple[Item, ...]
    notes: tuple[str, ...] = ()

    @property
    def format(self) -> str:
        """Which checkpoints these are, for the front-end comparisons (``against_<format>``)."""
        return "orbax"

    @property
    def what(self) -> str:
        return "an Orbax checkpoint"

    @property
    def protos(self) -> list[Item]:
        return [item for item in self.items if item.proto is not None]


def is_orbax(path: Path) -> bool:
    """Whether ``path`` is an Orbax step directory or a CheckpointManager root, by its files: a
    step's metadata, or entries named as Orbax names steps (finished or being written) and no
    TensorFlow checkpoint beside them (a ``checkpoint`` state file, an ``.index``). What cannot
    be looked at is Orbax's when its names say so, and its reader says what failed."""
    try:
        if not path.is_dir():
            return False
        if _is_step(path):
            return True
        names = [e.name for _, e in zip(range(MAX_STEPS + 1), os.scandir(path), strict=False)]
    except OSError:
        return False
    if "checkpoint" in names or any(name.endswith(".index") for name in names):
        return False
    return any(_number(name) is not None or _WRITING in name for name in names)


def _is_step(folder: Path) -> bool:
    return (folder / CHECKPOINT_METADATA).exists() or (folder / TREE_METADATA).exists()


def read_orbax(path: str | Path, step: int | None = None) -> OrbaxCheckpoint:
    """The checkpoint at ``path``: a step directory, or a CheckpointManager root (its step
    ``step``, else its latest, as Orbax picks it: the highest step number of the finished step
    directories). Raises UnreadableCheckpoint."""
    folder = Path(path)
    try:
        if not folder.is_dir():
            if not folder.exists():
                raise UnreadableCheckpoint(f"{_p(path)}: no such file or folder")
            raise UnreadableCheckpoint(
                f"{_p(path)}: not a folder (an Orbax checkpoint is a step directory)"
            )
        if _is_step(folder):
            if step is not None:
                raise UnreadableCheckpoint(
                    f"{_p(path)}: a step directory, not a CheckpointManager root: "
                    "--step picks a step of a root"
                )
            found = _number(folder.name)
        else:
            found, folder = _pick(folder, step)
        return _read_step(folder, found)
    except OSError as error:
        # The file that failed, where the system says (an item, a metadata file), not the root.
        raise UnreadableCheckpoint(f"{_p(error.filename or path)}: {why(error)}") from None


def _p(path: object) -> str:
    """A path for a message: whole (a user looks it up), with what a terminal would act on
    escaped."""
    return printable(str(path))


def _number(name: str) -> int | None:
    match = _STEP.match(name)
    return int(match.group("step")) if match else None


def _steps(root: Path) -> dict[int, Path]:
    """The root's step directories by number. Two names of one step, or steps of several
    prefixes, are no root Orbax reads one way: refused, as a link among them is."""
    steps: dict[int, Path] = {}
    prefixes: set[str] = set()
    for count, entry in enumerate(os.scandir(root)):
        if count >= MAX_STEPS:
            raise UnreadableCheckpoint(f"{_p(root)}: more than {MAX_STEPS} entries")
        match = _STEP.match(entry.name)
        if match is None or not entry.is_dir():
            continue
        if entry.is_symlink():
            raise UnreadableCheckpoint(
                f"{_p(entry.path)}: a symbolic link; tpuemb does not follow links inside a "
                "checkpoint"
            )
        number = int(match.group("step"))
        if number in steps:
            raise UnreadableCheckpoint(
                f"{_p(root)}: two step directories for step {number} "
                f"({_p(Path(steps[number]).name)}, {_p(entry.name)}): name one"
            )
        prefixes.add(match.group("prefix") or "")
        steps[number] = Path(entry.path)
    if len(prefixes) > 1:
        shown_prefixes = ", ".join(repr(p) for p in sorted(prefixes)[:5])
        raise UnreadableCheckpoint(
            f"{_p(root)}: step directories of several step prefixes ({printable(shown_prefixes)}):"
            " name the step directory"
        )
    return steps


def _pick(root: Path, step: int | None) -> tuple[int, Path]:
    # Every finished step directory counts, as Orbax's latest_step counts it, whether or not
    # tpuemb can read it: the latest that cannot be read is an error, never skipped for an
    # older one.
    steps = _steps(root)
    if not steps:
        raise UnreadableCheckpoint(
            f"{_p(root)}: not an Orbax checkpoint (no {CHECKPOINT_METADATA} or "
            f"{TREE_METADATA} file, and no finished step directory in it)"
        )
    if step is None:
        latest = max(steps)
        return latest, steps[latest]
    if step not in steps:
        held = ", ".join(str(n) for n in sorted(steps)[-10:])
        raise UnreadableCheckpoint(f"{_p(root)}: no step {step} (steps: {held})")
    return step, steps[step]


def _read_step(folder: Path, step: int | None) -> OrbaxCheckpoint:
    metadata = _json(folder / CHECKPOINT_METADATA, required=False)
    handlers: Any = metadata.get("item_handlers") if isinstance(metadata, dict) else None
    notes: list[str] = []
    items: list[Item] = []
    if isinstance(handlers, str) or (handlers is None and (folder / TREE_METADATA).exists()):
        items.append(_item(folder, "", handlers if isinstance(handlers, str) else ""))
    elif isinstance(handlers, dict):
        if len(handlers) > MAX_ITEMS:
            raise UnreadableCheckpoint(
                f"{_p(folder / CHECKPOINT_METADATA)}: {len(handlers)} items, more than {MAX_ITEMS}"
            )
        for name, handler in sorted(handlers.items()):
            if not isinstance(name, str) or not _plain_name(name):
                named = printable(shown(repr(name)))
                raise UnreadableCheckpoint(
                    f"{_p(folder / CHECKPOINT_METADATA)}: an item named {named}, which is no "
                    "folder name"
                )
            items.append(_item(folder / name, name, handler if isinstance(handler, str) else ""))
    elif handlers is None:
        for entry in sorted(folder.iterdir())[:MAX_ITEMS]:
            if entry.is_dir() and not entry.is_symlink() and _is_item(entry):
                items.append(_item(entry, entry.name, ""))
    else:
        raise UnreadableCheckpoint(
            f"{_p(folder / CHECKPOINT_METADATA)}: `item_handlers` is neither an object nor a string"
        )
    for item in items:
        if item.store:
            label = f"item `{printable(item.name)}`" if item.name else "the checkpoint"
            notes.append(f"{label}: {item.store}")
    return OrbaxCheckpoint(str(folder), step, tuple(items), tuple(notes))


def _plain_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name


def _is_item(folder: Path) -> bool:
    return (folder / TREE_METADATA).exists() or any(folder.glob("*.pbtxt"))


def _item(folder: Path, name: str, handler: str) -> Item:
    handler = handler.rpartition(".")[2]
    shown_name = f"item `{printable(name)}`" if name else "the checkpoint"
    try:
        info = folder.lstat()
    except FileNotFoundError:
        raise UnreadableCheckpoint(
            f"{_p(folder)}: missing: _CHECKPOINT_METADATA names {shown_name}, whose "
            "folder is not there (an incomplete checkpoint)"
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise UnreadableCheckpoint(
            f"{_p(folder)}: a symbolic link; tpuemb does not follow links inside a checkpoint"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise UnreadableCheckpoint(f"{_p(folder)}: {shown_name} is not a folder")
    if handler == PROTO_HANDLER or (
        not handler and not (folder / TREE_METADATA).exists() and any(folder.glob("*.pbtxt"))
    ):
        return Item(name, handler or PROTO_HANDLER, str(folder), proto=_proto(folder))
    if not (folder / TREE_METADATA).exists():
        # JsonCheckpointHandler, array handlers of other layouts: named, not read.
        return Item(name, handler, str(folder))
    arrays = _arrays(folder)
    arrays, store = _with_store(folder, arrays)
    return Item(name, handler or "PyTreeCheckpointHandler", str(folder), arrays, store=store)


def _proto(folder: Path) -> tuple[str, str]:
    """The file a ProtoCheckpointHandler wrote: the item's one file (its name is the handler's
    argument, ``proto.pbtxt`` by default), besides Orbax's own ``commit_success.txt``; of
    several, the one ``.pbtxt``."""
    files = sorted(
        p for p in folder.iterdir() if p.name != "commit_success.txt" and not p.name.startswith(".")
    )[: MAX_ITEMS + 1]
    if len(files) > 1:
        files = [p for p in files if p.name.endswith(".pbtxt")] or files
    if not files:
        raise UnreadableCheckpoint(f"{_p(folder)}: a proto item with no file in it")
    if len(files) > 1:
        names = ", ".join(_p(p.name) for p in files[:5])
        raise UnreadableCheckpoint(
            f"{_p(folder)}: a proto item with {len(files)} files ({names}): which holds the "
            "message is not known"
        )
    data = _bytes(files[0], MAX_PROTO_BYTES)
    return str(files[0]), data.decode("utf-8", errors="replace")


def _bytes(file: Path, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit``: a link, a FIFO or a device is never opened."""
    return read_regular(file, limit, UnreadableCheckpoint, "a checkpoint")


def _json(file: Path, required: bool = True) -> Any:
    if not required and not os.path.lexists(file):
        return None
    data = _bytes(file, MAX_JSON_BYTES)
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        where = f" ({error})" if isinstance(error, json.JSONDecodeError) else ""
        raise UnreadableCheckpoint(f"{_p(file)}: not valid JSON{where}") from None


def _arrays(folder: Path) -> tuple[Array, ...]:
    file = folder / TREE_METADATA
    data = _json(file)
    tree = data.get("tree_metadata") if isinstance(data, dict) else None
    if not isinstance(tree, dict):
        raise UnreadableCheckpoint(f"{_p(file)}: no `tree_metadata` object")
    shardings = _shardings(folder)
    arrays = []
    for label, entry in tree.items():
        path = _key_path(file, label, entry)
        value = entry.get("value_metadata") if isinstance(entry, dict) else None
        if not isinstance(value, dict):
            raise UnreadableCheckpoint(
                f"{_p(file)}: {printable(shown(label))} has no value_metadata"
            )
        value_type = value.get("value_type")
        write_shape = _shape(file, label, value.get("write_shape"))
        sharding = shardings.get(".".join(str(k) for k in path))
        shape = None
        if write_shape is not None and sharding is not None and not sharding.replicated:
            shape = tuple(size * sharding.shards(d) for d, size in enumerate(write_shape))
        arrays.append(
            Array(
                path,
                str(value_type) if value_type is not None else "",
                write_shape,
                shape,
                sharding,
            )
        )
    return tuple(arrays)


def _key_path(file: Path, label: str, entry: Any) -> KeyPath:
    keys = entry.get("key_metadata") if isinstance(entry, dict) else None
    if not isinstance(keys, list) or not keys or len(keys) > MAX_RANK * 4:
        raise UnreadableCheckpoint(f"{_p(file)}: {printable(shown(label))} has no key path")
    path: list[Key] = []
    for key in keys:
        written = key.get("key") if isinstance(key, dict) else None
        kind = key.get("key_type") if isinstance(key, dict) else None
        index = str(written)
        if (
            kind == SEQUENCE
            and isinstance(written, (int, str))
            and index.isascii()
            and index.isdigit()
        ):
            path.append(int(written))
        elif isinstance(written, (str, int)) and not isinstance(written, bool):
            path.append(str(written))
        else:
            raise UnreadableCheckpoint(f"{_p(file)}: {printable(shown(label))}: a malformed key")
    return tuple(path)


def _shape(file: Path, label: str, shape: Any) -> tuple[int, ...] | None:
    if shape is None:
        return None
    if (
        not isinstance(shape, list)
        or len(shape) > MAX_RANK
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**62 for s in shape)
    ):
        raise UnreadableCheckpoint(
            f"{_p(file)}: {printable(shown(label))}: a malformed write_shape"
        )
    return tuple(shape)


def _shardings(folder: Path) -> dict[str, Sharding]:
    file = folder / SHARDING
    data = _json(file, required=False)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UnreadableCheckpoint(f"{_p(file)}: not a JSON object")
    found = {}
    for key, value in data.items():
        try:
            name = base64.b64decode(key, validate=True).decode("utf-8")
            written = json.loads(value) if isinstance(value, str) else value
        except (ValueError, RecursionError):
            raise UnreadableCheckpoint(
                f"{_p(file)}: an entry {printable(shown(repr(key)))} that is not base64 of a "
                "parameter name and JSON of its sharding"
            ) from None
        sharding = _sharding(written)
        if sharding is not None:
            found[name] = sharding
    return found


def _sharding(written: Any) -> Sharding | None:
    """A NamedSharding's axes and spec; None for another kind (a single device's, or one this
    reader does not know), which says nothing of the global shape."""
    if not isinstance(written, dict) or written.get("sharding_type") != "NamedSharding":
        return None
    sizes, names, spec = (
        written.get("shape"),
        written.get("axis_names"),
        written.get("partition_spec"),
    )
    if (
        not isinstance(sizes, list)
        or not isinstance(names, list)
        or len(sizes) != len(names)
        or len(sizes) > MAX_RANK
        or not all(isinstance(s, int) and 0 < s < 2**31 for s in sizes)
        or not all(isinstance(n, str) for n in names)
        or not isinstance(spec, list)
        or len(spec) > MAX_RANK
    ):
        return None
    dimensions: list[tuple[str, ...]] = []
    for entry in spec:
        if entry is None:
            dimensions.append(())
        elif isinstance(entry, str):
            dimensions.append((entry,))
        elif isinstance(entry, list) and all(isinstance(a, str) for a in entry):
            dimensions.append(tuple(entry))
        else:
            return None
    return Sharding(tuple(zip(names, sizes, strict=True)), tuple(dimensions))


def _uses_ocdbt(folder: Path) -> bool:
    data = _json(folder / TREE_METADATA)
    return isinstance(data, dict) and data.get("use_ocdbt") is True


def _with_store(folder: Path, arrays: tuple[Array, ...]) -> tuple[tuple[Array, ...], str]:
    """The arrays with the dtype (and shape, where no sharding gave one) of the store's
    ``.zarray`` records; and "" or why the store was not read. A shape the store contradicts
    is no checkpoint Orbax restores as its metadata says: refused."""
    if not (folder / MANIFEST).exists():
        if _uses_ocdbt(folder) and any(not array.skipped for array in arrays):
            # Orbax restores the values from the store: without it, nothing restores.
            raise UnreadableCheckpoint(
                f"{_p(folder)}: its _METADATA says the arrays are in an OCDBT store, and there "
                f"is none ({MANIFEST} is missing): the checkpoint does not restore"
            )
        # Nothing a comparison needs is missing: shapes come from the metadata, and dtypes are
        # not compared.
        return arrays, ""
    from tpuemb_cli.load import orbax_store

    if not orbax_store.zstd_available():
        return arrays, (
            "the OCDBT store is not read (it is zstd-compressed: pip install 'tpuemb[orbax]'): "
            "dtypes unknown, shapes from the shardings"
        )
    try:
        records = orbax_store.read_zarrays(folder)
    except orbax_store.UnreadableStore as problem:
        raise UnreadableCheckpoint(str(problem)) from None
    out = []
    for array in arrays:
        record = records.get(array.name)
        if record is None:
            out.append(array)
            continue
        if array.shape is not None and tuple(record.shape) != array.shape:
            raise UnreadableCheckpoint(
                f"{_p(folder)}: `{printable(array.name)}`: its sharding makes it "
                f"{array.shape}, its store's .zarray {tuple(record.shape)}: a checkpoint "
                "whose metadata disagree"
            )
        out.append(array._replace(shape=tuple(record.shape), dtype=record.dtype))
    return tuple(out), ""
