"""Finding the configuration of each linted file: the nearest one above it (``settings``).

Discovery walks up from each file's folder to the root. A folder that cannot be searched
(permission denied on it or on an ancestor) ends the walk there: the defaults apply, as if no
configuration were above it. Such a folder is first tried by its path relative to the working
directory, which reaches the folders below it even when an ancestor is closed (a container that
runs as another user in /root/project finds /root/project/.tpuemb.toml).
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TYPE_CHECKING

from tpuemb_cli.engine.settings import Selection, Settings, configured, read

if TYPE_CHECKING:
    from pathlib import Path


class Resolver:
    """Finds (and caches) the settings that apply to each linted file."""

    def __init__(
        self,
        config: Path | None = None,
        isolated: bool = False,
        selection: Selection | None = None,
    ) -> None:
        self.selection = selection = selection or Selection()
        self.fixed: Settings | None = None
        if isolated:
            self.fixed = selection.merged(Settings())
        elif config is not None:
            self.fixed = selection.merged(read(config))
        # Folders are strings, as settings.absolute spells them (absolute, normalized, links
        # kept): the walk makes no Path until it finds a configuration file, so that a run with
        # none does not import pathlib (with urllib.parse and ipaddress: about 7% of the start-up
        # floor `tpuemb check` is measured against).
        self._by_folder: dict[str, Settings] = {}
        self._by_dirname: dict[str, Settings] = {}
        self._cwd: str | None = None

    def for_file(self, file: str | None) -> Settings:
        if self.fixed is not None:
            return self.fixed
        # Files of one folder share their settings: cached by the folder as spelled, so that a
        # directory of a thousand files makes one absolute path, not a thousand.
        dirname = os.path.dirname(file) if file else "."  # noqa: PTH120
        cached = self._by_dirname.get(dirname)
        if cached is None:
            folder = os.path.dirname(_absolute(file)) if file else _absolute(".")  # noqa: PTH120
            cached = self._by_dirname[dirname] = self._for_folder(folder)
        return cached

    def _for_folder(self, folder: str) -> Settings:
        """The settings of the files in ``folder`` (absolute), walking up."""
        walked: list[str] = []
        settings = None
        while settings is None:
            cached = self._by_folder.get(folder)
            if cached is not None:
                settings = cached
                break
            walked.append(folder)
            try:
                settings = self._found_in(folder)
            except OSError:  # not searchable: the walk ends here, with the defaults
                settings = self.selection.merged(Settings())
                break
            if settings is None:
                parent = os.path.dirname(folder)  # noqa: PTH120
                if parent == folder:
                    settings = self.selection.merged(Settings())
                folder = parent
        for each in walked:
            self._by_folder[each] = settings
        return settings

    def _found_in(self, folder: str) -> Settings | None:
        """The configuration in ``folder``, if any; OSError if the folder cannot be searched."""
        try:
            return self._look(folder, folder)
        except PermissionError:
            # Closed by an ancestor, maybe: below the working directory, a relative path does
            # not pass the ancestors.
            if self._cwd is None:
                self._cwd = _absolute(".")
            if folder != self._cwd and not _within(folder, self._cwd):
                raise
            return self._look(folder, os.path.relpath(folder, self._cwd))

    def _look(self, folder: str, reach: str) -> Settings | None:
        """The configuration in ``folder``, looked for by the path ``reach``."""
        # Each folder is looked in once (``_by_folder`` keeps what its walk found), and each
        # configuration file read once: pyproject.toml is parsed for its table and its settings
        # together.
        for name in (".tpuemb.toml", "pyproject.toml"):
            if _is_file(os.path.join(reach, name)):  # noqa: PTH118
                from pathlib import Path

                found = configured(Path(folder, name), Path(reach, name))
                if found is not None:
                    return self.selection.merged(found)
        return None


def _absolute(path: str) -> str:
    """``settings.absolute(path)`` as a string."""
    return os.path.normpath(os.path.abspath(path))  # noqa: PTH100


def _within(folder: str, ancestor: str) -> bool:
    """Whether ``ancestor`` is one of ``folder``'s parents (both absolute and normalized)."""
    head = ancestor if ancestor.endswith(os.sep) else ancestor + os.sep
    return folder != ancestor and folder.startswith(head)


def _is_file(path: str) -> bool:
    """Whether ``path`` is a file; OSError (permission denied) when its folder cannot be
    searched, which ``Path.is_file`` hides on some Python versions."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)  # noqa: PTH116
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG):
            return False
        raise
