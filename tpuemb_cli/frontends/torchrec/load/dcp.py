"""PyTorch distributed checkpoints (DCP) as ``tpuemb diff --against-checkpoint`` reads them: the
front-end's checkpoint reader (its record's ``checkpoints``).

A DCP checkpoint is a folder: ``FileSystemWriter`` (``torch/distributed/checkpoint/
filesystem.py``, torch 2.13.0) writes ``__<rank>_<n>.distcp`` files with the tensors and, when
the save finishes, ``.metadata`` (read by ``dcp_metadata``, without torch and without
unpickling). The folder, or its ``.metadata`` named alone, is told apart by those files.
"""

from __future__ import annotations

import os
from pathlib import Path

from tpuemb_cli.frontends.torchrec.load.dcp_metadata import (
    METADATA_NAME,
    DcpMetadata,
    UnreadableDcpMetadata,
    read_dcp_metadata,
)
from tpuemb_cli.load.checkpoint_state import UnreadableCheckpoint, why
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import printable

_DATA_SUFFIX = ".distcp"
_PICKLE = b"\x80"  # pickle's PROTO opcode, which every protocol from 2 begins with
# A folder is looked at this far for its data files (a checkpoint of 4,096 ranks holds as many).
_MAX_ENTRIES = 100_000


class DcpCheckpoint(Record):
    """A DCP checkpoint, read: ``path`` the folder (or the ``.metadata`` named), ``metadata``
    what its ``.metadata`` says; ``notes``: what was seen and not read, for the report."""

    path: str
    metadata: DcpMetadata
    prefix: str | None = None  # --checkpoint-prefix: where the collection's state dict sits
    notes: tuple[str, ...] = ()

    @property
    def format(self) -> str:
        """Which checkpoints these are, for the front-end comparisons (``against_<format>``)."""
        return "dcp"

    @property
    def what(self) -> str:
        return "a PyTorch distributed checkpoint"


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is a DCP checkpoint: a file named ``.metadata``, or a folder that holds
    one or ``.distcp`` data files (a save that did not finish: its reader says so)."""
    where = Path(path)
    if where.name == METADATA_NAME:
        return True  # named so: its reader says what it is, or why it cannot be read
    try:
        if not where.is_dir():
            # Its `.metadata` named alone (or kept under another name ending so): a pickle.
            if not where.name.endswith(METADATA_NAME) or not where.is_file():
                return False
            with where.open("rb") as stream:
                return stream.read(1) == _PICKLE

        if (where / METADATA_NAME).exists():
            return True
        with os.scandir(where) as entries:
            for count, entry in enumerate(entries):
                if count >= _MAX_ENTRIES:
                    return False
                if entry.name.endswith(_DATA_SUFFIX):
                    return True
    except OSError:
        return False
    return False


def read_checkpoint(
    path: str | Path, step: int | None = None, prefix: str | None = None
) -> DcpCheckpoint:
    """The DCP checkpoint at ``path`` (its folder, or its ``.metadata``); ``prefix``: where the
    embedding collection's state dict sits in it (found when None). Raises
    UnreadableCheckpoint."""
    name = printable(str(path))
    if step is not None:
        raise UnreadableCheckpoint(
            f"{name}: --step picks a step of an Orbax CheckpointManager's root; a PyTorch "
            "distributed checkpoint is one folder: name it"
        )
    where = Path(path)
    try:
        if where.is_dir() and not (where / METADATA_NAME).exists():
            raise UnreadableCheckpoint(
                f"{name}: a PyTorch distributed checkpoint's folder without its `{METADATA_NAME}` "
                "(its .distcp data files are there): the save did not finish, and nothing says "
                "what the data files hold"
            )
        metadata = read_dcp_metadata(where)
    except UnreadableDcpMetadata as problem:
        raise UnreadableCheckpoint(str(problem)) from None
    except OSError as error:
        raise UnreadableCheckpoint(
            f"{printable(str(error.filename or path))}: {why(error)}"
        ) from None
    notes: tuple[str, ...] = ()
    if not where.is_dir():
        notes = (
            f"{name}: read alone: the keys and shapes are its own, the data files beside it "
            "are not looked at",
        )
    return DcpCheckpoint(str(path), metadata, prefix, notes)
