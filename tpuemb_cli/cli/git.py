"""What ``tpuemb diff --against`` asks git, run as a subprocess (git is what the user has, and a
library for it would be a dependency for one option's plumbing): the repository that holds a
folder, a revision's commit, the files under some paths at that commit, the renames git finds
from the commit to the working tree, and the bytes of blobs."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from tpuemb_cli.load.encodings import EXTENSIONS

# Pathspecs handed to one git command at most, in characters: a pre-commit run names every
# staged file, and a command line has a length limit (32 KiB on Windows).
_ARGUMENTS_LENGTH = 16_000


class GitError(Exception):
    """git is missing, or could not do what was asked; each argument is one message (exit 2)."""


class Place(NamedTuple):
    """Where a folder is: the top of the repository that holds it (absolute, as git gives it)
    and the folder's path from that top ("" at the top, else ending in "/")."""

    top: str
    prefix: str


class Entry(NamedTuple):
    """A file at a commit: its path from the repository's top ("/"-separated), its blob."""

    path: str
    blob: str


class Rename(NamedTuple):
    """A file git finds renamed from the commit to the working tree (paths from the top), and
    the blob the old path holds at the commit."""

    old: str
    blob: str
    new: str


def run(args: Sequence[str], top: str | None = None, data: bytes | None = None) -> bytes:
    """git's output for ``args`` (in the folder ``top``, when given); raises GitError with
    git's last line of complaint."""
    command = ["git", *(["-C", top] if top is not None else []), *args]
    try:
        done = subprocess.run(
            command, input=data, capture_output=True, check=False, timeout=300, env=_environment()
        )
    except FileNotFoundError:
        raise GitError("git is not installed (--against reads the revision with git)") from None
    except (OSError, subprocess.TimeoutExpired) as problem:
        raise GitError(f"git could not run: {problem}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        # git's verdict is its "fatal:" line; advice may follow it (safe.directory)
        line = next(
            (s for s in said if s.startswith(("fatal: ", "error: "))), said[-1] if said else ""
        )
        raise GitError(
            line.partition(": ")[2]
            if line.startswith(("fatal: ", "error: "))
            else line or f"git {args[0]} failed"
        )
    return done.stdout


def _environment() -> dict[str, str]:
    # A git hook gets GIT_INDEX_FILE relative to the repository's top (`.git/index`): it must
    # still name that index when git runs with -C in another folder.
    environment = dict(os.environ)
    index = environment.get("GIT_INDEX_FILE")
    if index:
        environment["GIT_INDEX_FILE"] = os.path.abspath(index)  # noqa: PTH100
    return environment


class Repositories:
    """Which repository holds each folder, asked of git (``rev-parse``) once per folder -- or
    not at all for a folder below one already known, with no ``.git`` of its own and no link:
    git would find the same repository from it."""

    def __init__(self) -> None:
        self._places: dict[str, Place | GitError] = {}

    def place(self, folder: str) -> Place:
        """The repository holding ``folder`` (an existing folder); raises GitError when no
        repository does."""
        key = os.path.normpath(folder)
        known = self._places.get(key)
        if known is None:
            known = self._find(key)
            self._places[key] = known
        if isinstance(known, GitError):
            raise known
        return known

    def _find(self, folder: str) -> Place | GitError:
        parent, name = os.path.split(folder)
        parent = parent or os.curdir
        if (
            name not in ("", os.curdir, os.pardir, ".git")
            # a relative path is one above the working directory at most; another's parents
            # are asked only when known already
            and (parent in self._places or not _climbs(folder))
            and not Path(folder).is_symlink()
            and not os.path.lexists(os.path.join(folder, ".git"))  # noqa: PTH118
        ):
            try:
                above = self.place(parent)
            except GitError:
                pass
            else:
                return Place(above.top, f"{above.prefix}{name}/")
        try:
            said = run(["rev-parse", "--show-toplevel", "--show-prefix"], top=folder)
        except GitError as problem:
            return problem
        top, prefix = (os.fsdecode(line) for line in said.split(b"\n")[:2])
        return Place(top, prefix)


def _climbs(folder: str) -> bool:
    path = Path(folder)
    return path.is_absolute() or os.pardir in path.parts


def commit(revision: str, top: str) -> str:
    """The commit ``revision`` names in the repository at ``top``; raises GitError."""
    found = run(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], top=top)
    return found.decode().strip()


def files(top: str, at: str, paths: Sequence[str]) -> list[Entry]:
    """The files (blobs: not submodules) at commit ``at`` under ``paths`` (from the top, taken
    literally; "" is the whole tree)."""
    found = []
    batches = [[]] if "" in paths else _batches(paths)
    for batch in batches:
        listed = run(
            ["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", at, "--", *batch],
            top=top,
        )
        for record in listed.split(b"\0"):
            if not record:
                continue
            meta, _, path = record.partition(b"\t")
            _mode, kind, blob = meta.decode().split()
            if kind == "blob":
                found.append(Entry(os.fsdecode(path), blob))
    return found


def _batches(paths: Sequence[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    length = 0
    for path in paths:
        if batch and length + len(path) > _ARGUMENTS_LENGTH:
            yield batch
            batch, length = [], 0
        batch.append(path)
        length += len(path) + 1
    if batch:
        yield batch


def renames(top: str, at: str) -> list[Rename]:
    """The files with a config extension git finds renamed from commit ``at`` to the working
    tree (what ``git diff -M at`` shows: staged or not; a file git does not track is not
    compared)."""
    patterns = [f":(icase)*{extension}" for extension in sorted(EXTENSIONS)]
    said = run(
        ["diff", "--raw", "-z", "--find-renames", "--diff-filter=R", "--no-abbrev", at, "--"]
        + patterns,
        top=top,
    )
    fields = said.split(b"\0")
    found = []
    # Each rename is three fields: ":mode mode blob blob R<score>", the old path, the new one.
    for index in range(0, len(fields) - 2, 3):
        meta = fields[index].decode().split()
        if meta and meta[-1].startswith("R"):
            found.append(
                Rename(os.fsdecode(fields[index + 1]), meta[2], os.fsdecode(fields[index + 2]))
            )
    return found


def blobs(top: str, wanted: Iterable[str], max_bytes: int) -> dict[str, bytes | int]:
    """The bytes of each blob, or its size where it is larger than ``max_bytes`` (not read)."""
    names = sorted(set(wanted))
    if not names:
        return {}
    sizes = {}
    # One line a blob: "<blob> blob <size>" (or "<blob> missing")
    for line in run(["cat-file", "--batch-check"], top, "\n".join(names).encode()).splitlines():
        said = line.decode().split()
        if len(said) == 3 and said[1] == "blob":
            sizes[said[0]] = int(said[2])
    found: dict[str, bytes | int] = {b: n for b, n in sizes.items() if n > max_bytes}
    small = [b for b in names if b in sizes and b not in found]
    if not small:
        return found
    # Each blob: its "<blob> blob <size>" line, its bytes, a newline.
    contents = run(["cat-file", "--batch"], top, "\n".join(small).encode())
    start = 0
    for blob in small:
        header = contents.index(b"\n", start)
        end = header + 1 + sizes[blob]
        found[blob] = contents[header + 1 : end]
        start = end + 1
    return found
