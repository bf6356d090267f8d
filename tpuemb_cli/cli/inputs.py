"""Finding and reading the inputs named on the command line: files, directories, stdin."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from typing import BinaryIO

from tpuemb_cli.load.encodings import discovered, for_name
from tpuemb_cli.load.identify import name_says
from tpuemb_cli.load.limits import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES  # the commands' default
from tpuemb_cli.model.records import Record

STDIN = "-"


class InputError(Exception):
    """An input that cannot be read at all: a usage or environment problem (exit code 2)."""


class Input(Record):
    """One input: ``path`` (the file to open) is None for stdin; ``name`` is what reports call
    it."""

    name: str
    # A string, not a Path: checking a named file then never imports pathlib (with urllib.parse
    # and ipaddress: about 7% of the start-up floor `tpuemb check` is measured against).
    path: str | None
    walked: bool = False  # found by walking a directory, not named on the command line
    unread: bool = False  # named, but not a name tpuemb reads: skipped
    # Not a regular file: a FIFO, a device, a process substitution (/dev/fd/63), /dev/stdin.
    # Read to its end like stdin, judged by its content, and never written to.
    special: bool = False
    # Found in a folder (``walked`` may also be set for a named file, by --documents-only).
    in_folder: bool = False
    # Why a named input is skipped unread: a folder with no file tpuemb reads (as ruff warns of
    # a folder with no Python file and exits 0: nothing to check is no error).
    skip: str = ""

    @property
    def writable(self) -> bool:
        """Whether a fix can be written back: a regular file, not a stream."""
        return self.path is not None and not self.special


def expand(arguments: list[str], stdin_name: str | None = None) -> Iterator[Input | InputError]:
    """The inputs the arguments name, directories walked for config extensions, in order.

    Yields an InputError (and goes on) for each argument that names nothing usable. A file named
    twice (``a.pbtxt ./a.pbtxt``, or named and inside a named directory) is yielded once, under
    the name it first had: linted and reported once.
    """
    seen: set[str] = set()
    # One argument names each file once (the walk follows no links): only several can repeat
    # one, and only then is each file's absolute path worth its cost.
    several = len(arguments) > 1

    def first_time(path: str) -> bool:
        if not several:
            return True
        key = os.path.abspath(path)  # noqa: PTH100 - normalized, links kept (as settings.absolute)
        if key in seen:
            return False
        seen.add(key)
        return True

    for argument in arguments:
        if argument == STDIN:
            yield Input(stdin_name or "<stdin>", None)
            continue
        if not argument:
            # Path("") is ".": an empty argument (an unset shell variable) would lint the
            # current directory.
            yield InputError("'': no such file or directory")
            continue
        path = spelled(argument)
        try:
            mode = os.stat(path).st_mode  # noqa: PTH116
        except FileNotFoundError:
            yield InputError(f"{argument}: no such file or directory")
            continue
        except OSError as error:
            yield InputError(f"{argument}: cannot read: {error.strerror or error}")
            continue
        if stat.S_ISDIR(mode):
            found = list(_walk(path))
            if not found:
                why = f"no file tpuemb reads in this folder ({discovered()})"
                yield Input(argument, path, walked=True, skip=why)
            for file in found:
                if first_time(file):
                    yield Input(file, file, walked=True, in_folder=True)
        elif first_time(argument):
            # /dev/stdin of a shell redirection is a regular file's link: still a stream to
            # read, never a file to write fixes to.
            special = not stat.S_ISREG(mode) or os.path.abspath(argument).startswith(  # noqa: PTH100
                ("/dev/", "/proc/")
            )
            yield Input(argument, path, special=special)


def spelled(name: str) -> str:
    """``name`` as pathlib spells it, ``str(Path(name))``: ``a/b`` for ``./a//b/`` (and a file
    named with a trailing slash is the file). pathlib is imported only for a name it would
    change."""
    parts = name.split("/")
    if os.sep == "/" and "" not in parts[1:] and "." not in parts:
        return name
    from pathlib import Path

    return str(Path(name))


def _walk(directory: str) -> Iterator[str]:
    """The files tpuemb reads below ``directory``, each named as pathlib spells it (``a/b``
    for ``./a//b``: the names reports show)."""
    from pathlib import Path

    # Sorted for stable output; hidden directories (.git, .venv) are skipped; symlinked
    # directories are not followed, so a link loop cannot trap the walk.
    # Strings, not Paths, inside the loop: a directory of a thousand files should cost little.
    for root, dirs, files in os.walk(Path(directory), followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = os.path.join(root, name)  # noqa: PTH118
            says = name_says(name)
            if says == "ours" or (says == "headed" and _headed(path)):
                yield str(Path(path))


def _headed(path: str) -> bool:
    """Whether the file at ``path`` (a .txt: notes, requirements, logs as often as a config)
    opens with a `# proto-message:` header naming a type tpuemb reads; one that cannot be read
    is not taken (nothing says it is ours)."""
    from tpuemb_cli.load.identify import headed
    from tpuemb_cli.load.signatures import PREFIX

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # noqa: PTH116 - a FIFO could block the walk
            return False
        with open(path, "rb") as stream:  # noqa: PTH123
            return headed(stream.read(PREFIX))
    except OSError:
        return False


class Stamp(Record):
    """What a regular file was when it was read: a fix is written only over the same file."""

    size: int
    mtime_ns: int


def read(item: Input, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The input's bytes; raises InputError if it cannot be read or exceeds ``max_bytes``."""
    return read_stamped(item, max_bytes)[0]


def read_stamped(item: Input, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[bytes, Stamp | None]:
    """The input's bytes and, for a regular file, its size and modification time before the
    read; raises InputError if it cannot be read or exceeds ``max_bytes``."""
    if item.path is None:
        return _read_stream(sys.stdin.buffer, item.name, max_bytes), None
    try:
        # os.stat and open: pathlib's wrappers cost more than the read of a small config
        status = os.stat(item.path)  # noqa: PTH116
        if stat.S_ISDIR(status.st_mode):
            raise InputError(f"{item.name}: is a directory")
        if not stat.S_ISREG(status.st_mode):
            if item.in_folder:  # found in a folder: a FIFO there could block the walk forever
                raise InputError(f"{item.name}: not a regular file")
            with open(item.path, "rb") as stream:  # noqa: PTH123
                return _read_stream(stream, item.name, max_bytes), None
        encoding = for_name(item.path)
        if encoding is not None and encoding.archive:
            # The members the codec reads, each within the limit; not the rest of the archive.
            members = encoding.module().members_of_file(item.path, max_bytes)
            if members is not None:
                return members, Stamp(status.st_size, status.st_mtime_ns)
        if status.st_size > max_bytes:
            raise InputError(
                f"{item.name}: file is {status.st_size} bytes, larger than the limit of "
                f"{max_bytes} bytes (raise it with --max-file-size)"
            )
        with open(item.path, "rb") as handle:  # noqa: PTH123
            # The size stat gave, not the limit: read(n) allocates n bytes up front, and the
            # limit's allocation for every small file showed in the many-files benchmark.
            data = handle.read(status.st_size + 1)
            if len(data) > status.st_size:  # it grew since stat: read the rest, to the limit
                data += handle.read(max_bytes + 1 - len(data))
    except InputError:
        raise
    except OSError as error:
        raise InputError(f"{item.name}: cannot read: {error.strerror or error}") from None
    if len(data) > max_bytes:
        raise InputError(f"{item.name}: file grew past the limit of {max_bytes} bytes while read")
    return data, Stamp(status.st_size, status.st_mtime_ns)


def _read_stream(stream: BinaryIO, name: str, max_bytes: int) -> bytes:
    """A stream's bytes to its end (stdin, a pipe, a device), refused past ``max_bytes``."""
    # In pieces: read(max_bytes + 1) would allocate the whole limit (256 MiB) up front.
    pieces, size = [], 0
    while size <= max_bytes:
        piece = stream.read(min(1 << 20, max_bytes + 1 - size))
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    data = b"".join(pieces)
    if len(data) > max_bytes:
        raise InputError(f"{name}: input is larger than the limit of {max_bytes} bytes")
    return data
