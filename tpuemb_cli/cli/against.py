"""``tpuemb diff --against REF [PATH...]``: each config or spec under the paths, paired with its
version at a git revision as git pairs them (``cli/git``).

Each path is resolved to the repository that holds it -- a path through ``..``, an absolute one,
one in another repository, or the working directory in none -- and each file is known by its
path from that repository's top: the walk of a folder now (``inputs.expand``: hidden folders
skipped, a named file always taken) meets the same folder at the revision (``git ls-tree``), and
a file git finds renamed since (``git diff -M REF``: the revision against the working tree,
staged or not) is paired with its old path's version. Each repository is read at its own REF.
Reports name a file as the user wrote it (a file only git knew of: relative to the working
directory)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from tpuemb_cli.cli import git, inputs
from tpuemb_cli.cli.git import GitError
from tpuemb_cli.load.encodings import discovered
from tpuemb_cli.load.identify import headed, name_says

__all__ = ["GitError", "Versions", "versions"]


class Versions(NamedTuple):
    """One file: its bytes at the revision (None: not there) and now (None: gone)."""

    name: str  # the file now (the file removed since: its name at the revision)
    old_name: str  # its name at the revision: another one for a file renamed since
    old: bytes | None
    new: bytes | None
    walked: bool  # found in a directory named on the command line, not named itself


# A file in a repository: the repository's top and the file's path from it ("/"-separated).
Key = tuple[str, str]


class _Path(NamedTuple):
    """One path of the command line, in the repository that holds it."""

    argument: str
    name: str  # the argument, normalized: the start of the names of the files found under it
    top: str
    path: str  # from the top ("" for the top itself)


class _Now(NamedTuple):
    name: str
    item: inputs.Input
    walked: bool


class _Then(NamedTuple):
    name: str
    blob: str
    walked: bool


class _Pair(NamedTuple):
    """A file at the revision and now, in the repository at ``top``."""

    top: str
    then: _Then | None
    now: _Now | None
    walked: bool
    renamed: bool = False


def versions(
    revision: str, paths: Sequence[str], max_bytes: int
) -> tuple[list[Versions], list[str]]:
    """Each config under ``paths`` now or at ``revision``, sorted by name, and the problems of
    those that could not be read (each a message naming the file). Raises GitError when the
    revision is no revision, or nothing could be read at it (no path is in a repository that
    has it)."""
    if not revision or revision.startswith("-"):
        raise GitError(f"{revision!r}: not a revision")
    pairing = _Pairing(revision, max_bytes)
    for argument in paths:
        pairing.take(argument)
    return pairing.finish()


class _Pairing:
    """The files now and at the revision, by repository, paired."""

    def __init__(self, revision: str, max_bytes: int) -> None:
        self.revision = revision
        self.max_bytes = max_bytes
        self.repositories = git.Repositories()
        self.problems: list[str] = []
        self.paths: list[_Path] = []
        self.now: dict[Key, _Now] = {}
        self.taken: set[int] = set()  # the paths under which a file was found, now or then
        self.unplaced: set[str] = set()  # folders git found in no repository (said once)

    def take(self, argument: str) -> None:
        """The files under ``argument`` now, and the place of its path at the revision."""
        if argument == inputs.STDIN:
            self.problems.append(
                "-: --against compares files with their versions in git, not standard input"
            )
            return
        if not argument:
            self.problems.append("'': no such file or directory")
            return
        try:
            found = self._locate(argument)
        except GitError as problem:
            self.problems.append(f"{argument}: cannot compare with {self.revision}: {problem}")
            return
        index = len(self.paths)
        self.paths.append(found)
        for item in inputs.expand([argument]):
            if not isinstance(item, inputs.InputError) and item.skip:
                continue  # a folder with no config now: what it held at the revision decides
            if isinstance(item, inputs.InputError):
                if os.path.lexists(argument) and not Path(argument).is_dir():
                    self.problems.append(str(item))  # there, but it cannot be read
                    self.taken.add(index)
                # else gone, or a folder with no config now: what it held at the revision
                # decides (finish)
                continue
            key = self._key(item, found)
            if key is not None:
                self.taken.add(index)
                self.now.setdefault(key, _Now(os.path.normpath(item.name), item, item.walked))

    def _locate(self, argument: str) -> _Path:
        """An argument's repository and path in it, whether it is there now or not (a path
        gone since is placed by its nearest folder that is)."""
        name = os.path.normpath(argument)
        folder, rest = name, []
        if not Path(folder).is_dir():
            folder, base = os.path.split(name)
            rest.append(base)
        while not Path(folder or os.curdir).is_dir():
            folder, base = os.path.split(folder)
            if not base:
                raise GitError("no folder of it exists")
            rest.append(base)
        place = self.repositories.place(folder or os.curdir)
        path = place.prefix + "/".join(reversed(rest))
        return _Path(argument, name, place.top, path.rstrip("/"))

    def _key(self, item: inputs.Input, found: _Path) -> Key | None:
        if not item.walked:
            return found.top, found.path
        folder, base = os.path.split(item.name)
        try:
            place = self.repositories.place(folder)
        except GitError as problem:
            if folder not in self.unplaced:
                self.unplaced.add(folder)
                self.problems.append(f"{folder}: cannot compare with {self.revision}: {problem}")
            return None
        if place.top != found.top and all(p.top != place.top for p in self.paths):
            # A repository inside the folder walked (once a run): its files at the revision are
            # its own, under its top (whose name is the folder's, less the prefix's depth).
            parts = Path(os.path.normpath(folder)).parts
            depth = place.prefix.count("/")
            if depth < len(parts):
                below = str(Path(*parts[: len(parts) - depth]))
                self.taken.add(len(self.paths))
                self.paths.append(_Path(below, below, place.top, ""))
        return place.top, place.prefix + base

    def finish(self) -> tuple[list[Versions], list[str]]:
        tops = dict.fromkeys(p.top for p in self.paths)
        pairs: list[_Pair] = []
        read: list[str] = []
        for top in tops:
            try:
                at = git.commit(self.revision, top)
            except GitError:
                held = [p.argument for p in self.paths if p.top == top]
                more = f" and {len(held) - 3} more" if len(held) > 3 else ""
                self.problems.append(
                    f"{self.revision}: not a revision git can read in the repository at "
                    f"{_shown(top)}, which holds {', '.join(held[:3])}{more} (fetch it, or "
                    "name another)"
                )
                continue
            try:
                pairs += self._pair(top, at)
            except GitError as problem:
                self.problems.append(f"{_shown(top)}: git cannot list {self.revision}: {problem}")
                continue
            read.append(top)
        for index, path in enumerate(self.paths):
            if index not in self.taken and path.top in read:
                self.problems.append(self._nothing_at(path))
        if not read and self.problems:
            raise GitError(*self.problems)
        return self._read(pairs), self.problems

    def _nothing_at(self, path: _Path) -> str:
        if os.path.lexists(path.argument):
            return (
                f"{path.argument}: no config files in this directory, now or at "
                f"{self.revision} ({discovered()})"
            )
        return f"{path.argument}: no such file or directory, now or at {self.revision}"

    def _pair(self, top: str, at: str) -> list[_Pair]:
        """The pairs of the repository at ``top``, read at commit ``at``."""
        mine: dict[str, int] = {}  # each path from the top: the first argument that names it
        for index, path in enumerate(self.paths):
            if path.top == top:
                mine.setdefault(path.path, index)
        then: dict[Key, _Then] = {}
        for entry in git.files(top, at, list(mine)):
            found = self._under(mine, entry)
            if found is not None:
                then.setdefault((top, entry.path), found)
        now = {key: found for key, found in self.now.items() if key[0] == top}
        pairs = []
        for rename in git.renames(top, at):
            old_key, new_key = (top, rename.old), (top, rename.new)
            if old_key not in then and new_key not in now:
                continue  # neither side is under the paths
            old = then.pop(old_key, None) or _Then(_shown(top, rename.old), rename.blob, True)
            new = now.pop(new_key, None)
            if new is None:  # moved out of the paths: still where the old file's state went
                on_disk = os.path.join(top, *rename.new.split("/"))  # noqa: PTH118
                shown = _shown(top, rename.new)
                new = _Now(shown, inputs.Input(shown, on_disk), old.walked)
            pairs.append(_Pair(top, old, new, new.walked, renamed=True))
        for key in then.keys() | now.keys():
            was, came = then.get(key), now.get(key)
            walked = came.walked if came is not None else was is not None and was.walked
            pairs.append(_Pair(top, was, came, walked))
        return pairs

    def _under(self, mine: dict[str, int], entry: git.Entry) -> _Then | None:
        """The file ``entry`` as the deepest path of the command line that holds it names it;
        None when none does, or when the walk of that folder would not find it (in a hidden
        folder, or without a config's extension)."""
        parts = entry.path.split("/")
        for depth in range(len(parts), -1, -1):
            index = mine.get("/".join(parts[:depth]))
            if index is None:
                continue
            path = self.paths[index]
            if depth == len(parts):
                self.taken.add(index)
                return _Then(path.name, entry.blob, False)
            rest = parts[depth:]
            if any(part.startswith(".") for part in rest[:-1]) or (
                name_says(rest[-1]) not in ("ours", "headed")
            ):
                return None  # a .txt is taken for now: its header, once read, decides (_read)
            self.taken.add(index)
            name = os.path.normpath(os.path.join(path.name, *rest))  # noqa: PTH118
            return _Then(name, entry.blob, True)
        return None

    def _read(self, pairs: list[_Pair]) -> list[Versions]:
        """Each pair's bytes, sorted by name; a file that cannot be read is a problem."""
        found: list[Versions] = []
        contents: dict[str, dict[str, bytes | int]] = {}
        for top in dict.fromkeys(pair.top for pair in pairs):
            wanted = [p.then.blob for p in pairs if p.top == top and p.then is not None]
            try:
                contents[top] = git.blobs(top, wanted, self.max_bytes)
            except GitError as problem:
                self.problems.append(f"{_shown(top)}: git cannot read {self.revision}: {problem}")
        for top, then, now, walked, renamed in pairs:
            if top not in contents:
                continue
            if then is not None and not _ours_then(then, contents[top].get(then.blob)):
                if now is None:
                    continue
                then = None  # a .txt without our header then: the file is new as a config
            old = new = None
            if then is not None:
                held = contents[top].get(then.blob)
                if not isinstance(held, bytes):
                    self.problems.append(
                        f"{then.name}: cannot read it at {self.revision}"
                        if held is None
                        else f"{then.name}: at {self.revision}, {held} bytes, larger than the "
                        f"limit of {self.max_bytes} bytes (raise it with --max-file-size)"
                    )
                    continue
                old = held
            if now is not None:
                try:
                    new = inputs.read(now.item, self.max_bytes)
                except inputs.InputError as problem:
                    self.problems.append(str(problem))
                    continue
            if now is None:
                assert then is not None  # a pair has a side
                found.append(Versions(then.name, then.name, old, new, walked))
            else:
                # A renamed file's old side is its old name; else the file has the one name.
                was = then.name if renamed and then is not None else now.name
                found.append(Versions(now.name, was, old, new, walked))
        found.sort(key=lambda version: version.name)
        return found


def _ours_then(then: _Then, held: bytes | int | None) -> bool:
    """Whether a file found by walking a folder at the revision is one the walk takes: a name of
    a config's extension, or a .txt whose `# proto-message:` header names a type tpuemb reads
    (as ``inputs.expand`` takes them now)."""
    if not then.walked or name_says(then.name) == "ours":
        return True
    return isinstance(held, bytes) and headed(held)


def _shown(top: str, path: str = "") -> str:
    """A file only git named (or a repository's top), relative to the working directory."""
    where = os.path.join(top, *path.split("/")) if path else top  # noqa: PTH118
    try:
        return os.path.relpath(where)
    except ValueError:  # on another drive
        return where
