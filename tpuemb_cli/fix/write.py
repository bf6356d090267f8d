"""Writing a fixed file back, and showing a fix as a diff instead: both from the same bytes, so
that applying the diff gives exactly what ``--fix`` writes."""

from __future__ import annotations

import difflib
import errno
import hashlib
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from tpuemb_cli.fix.atomic import write_atomic
from tpuemb_cli.model.words import printable

BOM = b"\xef\xbb\xbf"
NO_NEWLINE = "\\ No newline at end of file\n"


def rendered(original: bytes, text: str) -> bytes:
    """``text`` as the bytes to write over ``original``: UTF-8, with the byte-order mark the file
    had (the loader reads past it, so ``text`` does not hold it)."""
    encoded = text.encode("utf-8")
    return BOM + encoded if original.startswith(BOM) else encoded


class Changed(Exception):
    """The file is no longer what was read: it was saved during the run. Nothing was written."""


class Stamp(Protocol):
    """What a file was when it was read (``cli.inputs.Stamp``)."""

    @property
    def size(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...


def write_text(path: Path, original: bytes, text: str, stamp: Stamp | None = None) -> None:
    """Replaces the content of the file at ``path``, whose bytes were ``original``, with
    ``text`` (see ``write_atomic``). With ``stamp`` (the file's size and modification time when
    it was read), raises Changed, writing nothing, unless the file still has that size, that
    time and the content ``original``: a fix of the old content must not overwrite an edit
    saved while tpuemb ran. Raises OSError, with a strerror that starts "permission denied" when
    the user may not write the file (or it is read-only: root, too, is refused)."""
    # Root may write any file; one with no write bit at all, its owner said no to.
    if not path.stat().st_mode & 0o222:
        raise PermissionError(errno.EACCES, "permission denied (the file is read-only)")
    check = unchanged_since(original, stamp) if stamp is not None else None
    write_atomic(path, rendered(original, text), check)


def unchanged_since(original: bytes | None, stamp: Stamp | None = None) -> Callable[[Path], None]:
    """A ``write_atomic`` check that the file still holds ``original`` (None: that it still
    does not exist) and, with ``stamp``, still has the size and modification time it had when
    read (the content's SHA-256 is compared too: an edit can keep both); raises Changed if not,
    so that an edit saved while tpuemb ran is not lost."""
    digest = hashlib.sha256(original).digest() if original is not None else b""

    def check(target: Path) -> None:
        try:
            now = target.stat()
        except FileNotFoundError:
            if original is None:
                return
            raise Changed() from None
        # A FIFO or device in its place is not the file read (and reading one could block).
        if original is None or not stat.S_ISREG(now.st_mode):
            raise Changed()
        if stamp is not None and (now.st_size, now.st_mtime_ns) != (stamp.size, stamp.mtime_ns):
            raise Changed()
        if hashlib.sha256(target.read_bytes()).digest() != digest:
            raise Changed()

    return check


def _lines(text: str) -> list[str]:
    """``text``'s lines as patch tools see them: ended by "\\n" only (str.splitlines also splits
    on "\\r", form feed, U+2028 and others, which diff, git apply and patch keep inside a line)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def _marked(lines: Iterator[str]) -> Iterator[str]:
    """Adds the "\\ No newline at end of file" line after a last line that has no newline."""
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n"
            yield NO_NEWLINE


# The bytes git quotes in a path (``quote_c_style``, core.quotePath on): its letters for the
# usual controls, octal for the rest of C0, DEL and every byte of a character past ASCII.
_C_LETTERS = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}


def _quoted(path: str) -> str:
    """A diff header's path as git writes it: as it is, or, when it holds a character human
    output escapes (``printable``), a quote or a backslash, in double quotes with C escapes
    (``"a/x\\033"``; git apply reads them). A file name cannot forge a line or colour the
    terminal through ``--diff`` (issue 36, point 11)."""
    if printable(path) == path and '"' not in path and "\\" not in path:
        return path
    out = []
    for byte in path.encode("utf-8", errors="surrogateescape"):
        if byte in _C_LETTERS:
            out.append("\\" + _C_LETTERS[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


def unified_diff(name: str, original: bytes, text: str) -> str:
    """The file ``name``, whose bytes are ``original``, -> what ``write_text`` would write for
    ``text``, as a unified diff that git apply and patch accept. git's a/ and b/ prefixes for a
    relative path (an absolute one is shown as it is)."""
    relative = not Path(name).is_absolute()
    before = original.decode("utf-8")
    after = rendered(original, text).decode("utf-8")
    return "".join(
        _marked(
            difflib.unified_diff(
                _lines(before),
                _lines(after),
                fromfile=_quoted(f"a/{name}" if relative else name),
                tofile=_quoted(f"b/{name}" if relative else name),
            )
        )
    )
