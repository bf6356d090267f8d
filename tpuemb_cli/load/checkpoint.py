"""A TensorFlow checkpoint's variables -- names, dtypes, shapes, slices -- read from its index,
without TensorFlow.

A checkpoint (``tf.train.Checkpoint.save``, ``CheckpointManager``, a SavedModel's ``variables/``)
is a tensor bundle: ``PREFIX.index``, a sorted string table (``sstable``) whose entry under the
empty key is a ``BundleHeaderProto`` and whose every other entry is a ``BundleEntryProto`` keyed
by the tensor's name, and ``PREFIX.data-0000N-of-0000M``, the tensors' bytes, which tpuemb never
reads. A variable saved in slices (a ``ShardedVariable``: the mid-level API's tables, split over
the hosts) has one entry with its full shape and the list of its slices, and one entry per slice
under a key that starts with a NUL byte (``checkpoint::EncodeTensorNameSlice``); the slices'
entries are not variables and are left out. Sources: ``tensorflow/core/util/tensor_bundle/``
(``tensor_bundle.cc``, ``naming.cc``), ``tensorflow/python/checkpoint/checkpoint_management.py``
(the ``checkpoint`` state file), tag v2.21.0.
"""

from __future__ import annotations

import re
import stat
from pathlib import Path

from google.protobuf.message import DecodeError

from tpuemb_cli.load.checkpoint_state import UnreadableCheckpoint as UnreadableCheckpoint
from tpuemb_cli.load.checkpoint_state import latest, why
from tpuemb_cli.load.limits import shown
from tpuemb_cli.load.sstable import Table, TableError
from tpuemb_cli.model.records import Record
from tpuemb_cli.pb.framework import tensor_bundle_pb2, types_pb2

# The largest index read. An index holds a few hundred bytes a variable: this is millions of
# variables, and bounds what a file that only claims to be an index makes tpuemb hold.
MAX_INDEX_BYTES = 512 * 1024 * 1024
# The newest bundle format TensorFlow 2.21 writes and reads (kTensorBundleVersion).
BUNDLE_VERSION = 1
# The key of the serialized object graph (a string tensor) in an object-based checkpoint.
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
# An object-based checkpoint keys a variable by its object path and this (trackable_utils.py).
VARIABLE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
STATE_FILE = "checkpoint"
_DATA_FILE = re.compile(r"\.data-\d{5}-of-\d{5}$")

Extent = tuple[int, int | None]  # (start, length); length None: the whole dimension


class Variable(Record):
    """One saved tensor: ``dtype`` is TensorFlow's DataType name (``DT_FLOAT``), ``shape`` the
    full tensor's; ``slices``, for a variable saved in slices, each slice's extent in every
    dimension (empty for a variable saved whole)."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    slices: tuple[tuple[Extent, ...], ...] = ()


class Checkpoint(Record):
    """A checkpoint's index, read: ``path`` is the ``.index`` file, ``variables`` every saved
    tensor by name (the object graph's key included), ``num_shards`` the data files it names;
    ``shard_bytes``: of each data file an entry reads from (by shard number), the bytes its
    entries reach (offset + size), which the file must hold."""

    path: str
    variables: dict[str, Variable]
    num_shards: int
    shard_bytes: tuple[tuple[int, int], ...] = ()

    def data_file(self, shard: int) -> Path:
        """The data file of ``shard``: ``PREFIX.data-0000S-of-0000N`` (``DataFilename`` in
        tensorflow/core/util/tensor_bundle/naming.cc)."""
        index = Path(self.path)
        prefix = index.name[: -len(".index")] if index.name.endswith(".index") else index.name
        return index.with_name(f"{prefix}.data-{shard:05d}-of-{self.num_shards:05d}")

    @property
    def format(self) -> str:
        """Which checkpoints these are, for the front-end comparisons (``against_<format>``)."""
        return "tensorflow"

    @property
    def what(self) -> str:
        return "a TensorFlow checkpoint"

    @property
    def object_based(self) -> bool:
        """Saved by ``tf.train.Checkpoint`` (keys are object paths), not by name (TF1 Saver)."""
        return OBJECT_GRAPH_KEY in self.variables


def escape(name: str) -> str:
    """A local name as an object path writes it: ``.`` doubled, ``/`` as ``.S``
    (``escape_local_name`` in tensorflow/python/trackable/trackable_utils.py)."""
    return name.replace(".", "..").replace("/", ".S")


def unescape(written: str) -> str:
    """The local name an object path's segment writes (``escape`` undone); other ``.X`` pairs
    (TensorFlow's own markers, ``.OPTIMIZER_SLOT``) are kept as they are."""
    if "." not in written:
        return written
    out, at = [], 0
    while at < len(written):
        pair = written[at : at + 2]
        if pair == "..":
            out.append(".")
            at += 2
        elif pair == ".S":
            out.append("/")
            at += 2
        else:
            out.append(written[at])
            at += 1
    return "".join(out)


def objects(checkpoint: Checkpoint) -> dict[str, dict[str, Variable]]:
    """The variables of an object-based checkpoint by the object that holds them: the holder's
    path as the keys write it (``embedding``, ``model/_tpu_embedding``; ``""`` for the root
    object) -> each variable's local name, unescaped (``user``, ``user/momenta``)."""
    found: dict[str, dict[str, Variable]] = {}
    for key, variable in checkpoint.variables.items():
        if not key.endswith(VARIABLE_SUFFIX):
            continue
        parent, _, local = key[: -len(VARIABLE_SUFFIX)].rpartition("/")
        found.setdefault(parent, {})[unescape(local)] = variable
    return found


def read_checkpoint(path: str | Path) -> Checkpoint:
    """The checkpoint at ``path``: a ``ckpt-N.index`` file, its prefix ``ckpt-N`` (or one of its
    data files), a folder holding the ``checkpoint`` state file (its latest checkpoint), a
    SavedModel folder or its ``variables/`` folder. Raises UnreadableCheckpoint."""
    try:
        index = find_index(Path(path))
    except OSError as error:
        # Looking the path up failed, not only found nothing (a name too long, a loop of
        # links, a folder that cannot be searched): said as such, whatever the errno.
        raise UnreadableCheckpoint(f"{shown(str(path))}: {why(error)}") from None
    try:
        size = index.stat().st_size
        if size > MAX_INDEX_BYTES:
            raise UnreadableCheckpoint(
                f"{index}: {size} bytes, larger than the {MAX_INDEX_BYTES} bytes tpuemb reads of "
                "a checkpoint index"
            )
        data = index.read_bytes()
    except OSError as error:
        raise UnreadableCheckpoint(f"{index}: cannot be read: {error.strerror}") from error
    checkpoint = parse_index(data, str(index))
    check_data(checkpoint)
    return checkpoint


def check_data(checkpoint: Checkpoint) -> None:
    """Every data file the index's entries read from exists and holds the bytes they reach: a
    checkpoint whose shard is gone or cut short does not restore (TensorFlow's restore fails
    with NotFoundError, or reads past the file's end), whatever its index says. Only the
    shards the entries name are looked at: a header's shard count is no loop bound."""
    for shard, needed in checkpoint.shard_bytes:
        data = checkpoint.data_file(shard)
        try:
            found = data.stat()
        except OSError as error:
            raise UnreadableCheckpoint(
                f"{checkpoint.path}: names the data file {data}, which cannot be read "
                f"({error.strerror}): the checkpoint is incomplete and does not restore"
            ) from None
        size = found.st_size
        if not stat.S_ISREG(found.st_mode):
            raise UnreadableCheckpoint(
                f"{checkpoint.path}: names the data file {data}, which is not a file: the "
                "checkpoint does not restore"
            )
        if size < needed:
            raise UnreadableCheckpoint(
                f"{checkpoint.path}: its entries read {needed} bytes of the data file {data}, "
                f"which holds {size}: a truncated checkpoint, which does not restore"
            )


def find_index(path: Path) -> Path:
    """The ``.index`` file that ``path`` names (see ``read_checkpoint``)."""
    if path.is_dir():
        return _index_in(path)
    if path.name.endswith(".index") and path.is_file():
        return path
    match = _DATA_FILE.search(path.name)
    prefix = path.with_name(path.name[: match.start()]) if match else path
    index = prefix.with_name(prefix.name + ".index")
    if index.is_file():
        return index
    try:
        path.stat()  # pathlib's exists() calls a loop of links nothing: said as what it is
    except FileNotFoundError:
        raise UnreadableCheckpoint(f"{path}: no such file or folder") from None
    raise UnreadableCheckpoint(
        f"{path}: not a checkpoint (name a ckpt-N.index file, its prefix ckpt-N, a folder with a "
        "`checkpoint` file, or a SavedModel)"
    )


def _index_in(folder: Path) -> Path:
    state = folder / STATE_FILE
    if state.is_file():
        return latest(state)
    for candidate in (folder / "variables" / "variables.index", folder / "variables.index"):
        if candidate.is_file():
            return candidate
    # Regular files only: a FIFO or a device named like an index is never opened (a read of one
    # would block, or never end).
    indexes = sorted(p for p in folder.glob("*.index") if p.is_file())
    if len(indexes) == 1:
        return indexes[0]
    if indexes:
        names = ", ".join(p.name for p in indexes[:5]) + (", ..." if len(indexes) > 5 else "")
        raise UnreadableCheckpoint(
            f"{folder}: holds {len(indexes)} checkpoints ({names}) and no `checkpoint` file "
            "naming the latest: name one"
        )
    raise UnreadableCheckpoint(
        f"{folder}: no checkpoint in it (no `checkpoint` file, no .index file, no SavedModel "
        "variables/)"
    )


def parse_index(data: bytes, name: str) -> Checkpoint:
    """The checkpoint whose index is ``data`` (``name``: the index's path, for messages). Raises
    UnreadableCheckpoint."""
    try:
        return _bundle(data, name)
    except TableError as error:
        raise UnreadableCheckpoint(f"{name}: not a readable checkpoint index: {error}") from None


def _bundle(data: bytes, name: str) -> Checkpoint:
    items = Table(data).items()
    first = next(items, None)
    if first is None or first[0] != b"":
        raise UnreadableCheckpoint(
            f"{name}: a table without a bundle header (its first key is not empty): not a "
            "TensorFlow checkpoint index"
        )
    header = tensor_bundle_pb2.BundleHeaderProto()
    _parse(header, first[1], name, "the bundle header")
    if header.version.min_consumer > BUNDLE_VERSION or BUNDLE_VERSION in set(
        header.version.bad_consumers
    ):
        raise UnreadableCheckpoint(
            f"{name}: written for bundle readers of version {header.version.min_consumer} or "
            f"later (TensorFlow 2.21 reads version {BUNDLE_VERSION}): a newer TensorFlow wrote it"
        )
    variables: dict[str, Variable] = {}
    reach: dict[int, int] = {}  # shard -> the bytes its entries reach
    for key, value in items:
        text = key.decode("utf-8", errors="backslashreplace")
        entry = tensor_bundle_pb2.BundleEntryProto()
        _parse(entry, value, name, f"the entry of {text!r}")
        if not entry.slices:  # a variable saved in slices has its bytes in its slices' entries
            _check_place(entry, header.num_shards, name, text)
            reach[entry.shard_id] = max(reach.get(entry.shard_id, 0), entry.offset + entry.size)
        if key.startswith(b"\0"):
            continue  # a slice of a variable saved in slices, listed by the variable's entry
        _check_shape(entry, name, text)
        variables[text] = Variable(
            text,
            _dtype(entry.dtype),
            tuple(dim.size for dim in entry.shape.dim),
            tuple(
                tuple(
                    (extent.start, extent.length if extent.HasField("length") else None)
                    for extent in piece.extent
                )
                for piece in entry.slices
            ),
        )
    return Checkpoint(name, variables, header.num_shards, tuple(sorted(reach.items())))


def _check_place(
    entry: tensor_bundle_pb2.BundleEntryProto, num_shards: int, name: str, key: str
) -> None:
    """Where an entry's bytes are: a shard the header counts, a place that is no negative."""
    if not 0 <= entry.shard_id < num_shards:
        raise UnreadableCheckpoint(
            f"{name}: the entry of {key!r} is in data file {entry.shard_id}, but the header "
            f"counts {num_shards}: a corrupt index"
        )
    if entry.offset < 0 or entry.size < 0:
        raise UnreadableCheckpoint(
            f"{name}: the entry of {key!r} has offset {entry.offset} and size {entry.size}: a "
            "corrupt index"
        )


# TensorFlow's own bound on a tensor's rank (TensorShape's kMaxDims).
MAX_RANK = 254


def _check_shape(entry: tensor_bundle_pb2.BundleEntryProto, name: str, key: str) -> None:
    """A saved variable's shape is fully known: a negative dimension, a rank past TensorFlow's
    bound, or a slice outside it is a corrupt entry, not a shape to compare."""
    dims = [dim.size for dim in entry.shape.dim]
    if len(dims) > MAX_RANK:
        raise UnreadableCheckpoint(
            f"{name}: the entry of {key!r} has rank {len(dims)}, beyond TensorFlow's {MAX_RANK}"
        )
    if any(size < 0 for size in dims):
        raise UnreadableCheckpoint(
            f"{name}: the entry of {key!r} has a negative dimension {dims}: a corrupt index"
        )
    for piece in entry.slices:
        for axis, extent in enumerate(piece.extent):
            length = extent.length if extent.HasField("length") else None
            bound = dims[axis] if axis < len(dims) else 0
            end = extent.start + (length if length is not None else 0)
            if extent.start < 0 or extent.start > bound or end > bound or (length or 0) < 0:
                raise UnreadableCheckpoint(
                    f"{name}: the entry of {key!r} has a slice outside its shape {dims}: a "
                    "corrupt index"
                )


def _parse(
    message: tensor_bundle_pb2.BundleHeaderProto | tensor_bundle_pb2.BundleEntryProto,
    value: bytes,
    name: str,
    what: str,
) -> None:
    try:
        message.ParseFromString(value)
    except (DecodeError, RuntimeError) as error:
        raise UnreadableCheckpoint(f"{name}: {what} does not parse: {error}") from None


def _dtype(value: int) -> str:
    try:
        return types_pb2.DataType.Name(value)
    except ValueError:
        return f"DataType {value}"
