"""Writing a user's file so that it stays the same file, and a failure leaves its old content.

The path is followed to the file it names: through symbolic links to their target, whose folder
holds the temporary file. A regular file is replaced by a temporary copy (written, fsynced, given
the file's owner, group and mode, renamed over it) when that copy is the same file to everyone
who uses it; when it would not be -- the file has several hard links, or belongs to someone the
writer cannot give a file to, or sits in a folder the writer cannot write -- it is rewritten in
place, and its old content put back if the write fails. Anything else (a FIFO, a device, a path
through /dev or /proc such as /dev/stdout) is written directly: there is no file to replace.
SIGTERM, SIGINT and SIGHUP during a write remove the temporary file (or put the old content back)
and are then delivered as they would have been.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from tpuemb_cli.model.signals import Signalled, signals_raise

SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)
_CHUNK = 1 << 20


class Interrupted(Signalled):
    """A signal arrived during a write."""


def denied() -> PermissionError:
    return PermissionError(errno.EACCES, "permission denied")


Check = Callable[[Path], None]


def write_atomic(path: Path, data: bytes, check: Check | None = None) -> None:
    """Puts ``data`` in the file ``path`` names, as the module says. Raises OSError on failure
    (PermissionError "permission denied" when the user may not write it), with the old content
    intact and no temporary file left. ``check``, given the file, is called at the last moment
    before the file changes (after the temporary copy is written); what it raises stops the
    write, the file untouched."""
    with _signals_interrupt():
        try:
            info: os.stat_result | None = path.stat()
        except FileNotFoundError:
            info = None
        if _special(path, info):
            if check is not None:
                check(path)  # a file that became a FIFO or device is no longer the one read
            with path.open("wb") as handle:
                handle.write(data)
            return
        target = Path(os.path.realpath(path))  # through symbolic links, to the file itself
        directory = target.parent
        in_folder = os.access(directory, os.W_OK | os.X_OK)
        if info is None:
            if not directory.is_dir():
                raise _no_folder(path, target)
            if not in_folder:
                raise denied()
            _replace(target, data, None, check)
        elif not os.access(target, os.W_OK):
            raise denied()
        elif info.st_nlink > 1 or not in_folder or not _replace(target, data, info, check):
            if check is not None:
                check(target)
            _rewrite(target, data)


def _no_folder(path: Path, target: Path) -> FileNotFoundError:
    """The error for a file whose folder does not exist (or a link that points into one)."""
    if target != Path(os.path.abspath(path)):  # noqa: PTH100 - the path as given, links kept
        return FileNotFoundError(
            errno.ENOENT, f"it is a symbolic link to {target}, whose folder does not exist"
        )
    return FileNotFoundError(errno.ENOENT, f"the folder {target.parent} does not exist")


def _special(path: Path, info: os.stat_result | None) -> bool:
    """Whether ``path`` is no regular file, or leads through /dev or /proc: /dev/stdout, or a
    link to /proc/self/fd/1, is a descriptor of this process -- replacing the file it points to
    would take the output away from whoever holds it open."""
    if info is not None and not stat.S_ISREG(info.st_mode):
        return True
    hop = path.absolute()
    for _ in range(40):  # the kernel's own limit on links in a row
        if str(hop).startswith(("/dev/", "/proc/")):
            return True
        try:
            hop = hop.parent / hop.readlink()
        except OSError:
            return False  # not a link (or nothing there): the file itself
    return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _replace(target: Path, data: bytes, info: os.stat_result | None, check: Check | None) -> bool:
    """Writes a temporary copy beside ``target`` and renames it over it; False (nothing done)
    when the copy cannot have ``info``'s owner and group."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tpuemb-tmp", dir=target.parent)
    temporary = Path(name)
    try:
        if info is not None:
            mine = os.fstat(fd)
            if (mine.st_uid, mine.st_gid) != (info.st_uid, info.st_gid):
                try:
                    os.fchown(fd, info.st_uid, info.st_gid)
                except PermissionError:
                    # Renamed into place, the copy would take the file from its owner.
                    os.close(fd)
                    fd = -1
                    temporary.unlink()
                    return False
            mode = info.st_mode & 0o7777  # after chown, which clears set-user-id
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, mode)
        _write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        if check is not None:
            check(target)
        temporary.replace(target)
    except BaseException:
        if fd != -1:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(target.parent)
    return True


def _rewrite(target: Path, data: bytes) -> None:
    """Writes ``data`` over ``target``'s content, in place; puts the old content back if that
    fails (the write is not atomic: only a crash of the machine can leave it half written)."""
    try:
        previous: bytes | None = target.read_bytes()
    except OSError:
        previous = None  # a file one may write but not read: nothing to put back
    fd = os.open(target, os.O_WRONLY)
    try:
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    except BaseException:
        if previous is not None:
            with contextlib.suppress(OSError):
                os.lseek(fd, 0, os.SEEK_SET)
                _write_all(fd, previous)
                os.ftruncate(fd, len(previous))
        raise
    finally:
        os.close(fd)


def _sync_folder(directory: Path) -> None:
    """Makes the rename durable (best effort: not every file system lets a folder be fsynced)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _signals_interrupt() -> contextlib.AbstractContextManager[None]:
    """The first SIGTERM, SIGINT or SIGHUP in the block is ``Interrupted``, so the write cleans
    up; then the process ends as the signal says (EINTR if its old handler did not end it)."""
    return signals_raise(SIGNALS, Interrupted, lambda: OSError(errno.EINTR, "interrupted"))
