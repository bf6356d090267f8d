"""The ``checkpoint`` state file of a checkpoint folder (a CheckpointState in text format, as
``CheckpointManager`` writes it): which checkpoint it names as the latest, and that checkpoint's
index. Every way a named path can fail to be looked up (a name too long, a loop of links, a
folder that cannot be searched) is an ``UnreadableCheckpoint`` naming the state file. Source:
``tensorflow/python/checkpoint/checkpoint_management.py``, tag v2.21.0.
"""

from __future__ import annotations

import errno
import re
import stat
from pathlib import Path

from google.protobuf.text_encoding import CUnescape

from tpuemb_cli.load.limits import shown

_LATEST = re.compile(r'^model_checkpoint_path:\s*"((?:[^"\\]|\\.)*)"\s*$', re.MULTILINE)


class UnreadableCheckpoint(Exception):
    """A path that is not a readable TensorFlow checkpoint; the message names the file and why
    (``load.checkpoint`` raises it too)."""


# A CheckpointState names a few checkpoints; CheckpointManager keeps at most a handful.
MAX_STATE_BYTES = 1 << 20


def latest(state: Path) -> Path:
    """The index of the checkpoint that the state file ``state`` (a CheckpointState in text
    format, as CheckpointManager writes it) names as the latest."""
    try:
        with state.open("rb") as stream:
            data = stream.read(MAX_STATE_BYTES + 1)
    except OSError as error:
        raise UnreadableCheckpoint(f"{state}: cannot be read: {error.strerror}") from error
    if len(data) > MAX_STATE_BYTES:
        raise UnreadableCheckpoint(
            f"{state}: larger than the {MAX_STATE_BYTES} bytes a checkpoint state file has "
            "(a few lines naming checkpoints): not one"
        )
    text = data.decode("utf-8", errors="replace")
    found = _LATEST.search(text)
    if found is None:
        raise UnreadableCheckpoint(
            f'{state}: names no latest checkpoint (no `model_checkpoint_path: "..."` line)'
        )
    try:
        named = CUnescape(found.group(1)).decode("utf-8", errors="replace")
    except ValueError as error:
        raise UnreadableCheckpoint(f"{state}: a malformed model_checkpoint_path: {error}") from None
    try:
        index = _index_of(state, Path(named))
    except OSError as error:
        raise UnreadableCheckpoint(
            f"{state}: names {shown(repr(named))} as the latest checkpoint, which cannot be "
            f"looked up: {why(error)}"
        ) from None
    if index is None:
        raise UnreadableCheckpoint(
            f"{state}: names {shown(repr(named))} as the latest checkpoint, but "
            f"{shown(str(prefix_index(state, Path(named))))} is no file"
        )
    return index


def prefix_index(state: Path, prefix: Path) -> Path:
    """The index of ``prefix`` as a state file in ``state``'s folder names it."""
    if not prefix.is_absolute():
        prefix = state.parent / prefix
    return prefix.with_name(prefix.name + ".index")


def _index_of(state: Path, prefix: Path) -> Path | None:
    """The index of the checkpoint the state file ``state`` names as ``prefix``; None when it
    is no file. Raises OSError when the path cannot be looked up."""
    index = prefix_index(state, prefix)
    if prefix.is_absolute() and not _is_file(index):
        # An absolute path from where it was written: the folder may have been copied since.
        index = state.parent / (prefix.name + ".index")
    return index if _is_file(index) else None


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file: False when there is nothing there; OSError when it
    cannot be looked up (pathlib's is_file lets ENAMETOOLONG and EACCES through, and calls a
    loop of links nothing)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return False
    except OSError as error:
        if error.errno == errno.ENOTDIR:  # a file where a folder was named: nothing there
            return False
        raise


def why(error: OSError) -> str:
    """What failed, in words: the system's, and for a name too long, that it is."""
    why = error.strerror or type(error).__name__
    if error.errno == errno.ENAMETOOLONG:
        why += " (the path is longer than the system looks up)"
    return why
