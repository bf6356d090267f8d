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
from pathlib import Path

from tpuemb_cli.engine.settings import (
    Selection,
    Settings,
    absolute,
    load_toml,
    read,
    tool_table,
)


def _has_tpuemb_table(path: Path, opened: Path) -> bool:
    # A pyproject.toml that is not valid TOML is an error, not a file without [tool.tpuemb]: it
    # may well have one, and ignoring it would drop every setting and suppression in it (pip and
    # ruff refuse such a file too).
    return tool_table(path, load_toml(path, opened)) is not None


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
        self._by_folder: dict[Path, Settings] = {}
        self._by_file: dict[Path, Settings] = {}
        self._by_dirname: dict[str, Settings] = {}
        self._cwd: Path | None = None

    def for_file(self, file: str | None) -> Settings:
        if self.fixed is not None:
            return self.fixed
        # Files of one folder share their settings: cached by the folder as spelled, so that a
        # directory of a thousand files makes one absolute path, not a thousand.
        dirname = os.path.dirname(file) if file else "."  # noqa: PTH120
        cached = self._by_dirname.get(dirname)
        if cached is None:
            folder = absolute(file).parent if file else absolute(".")
            cached = self._by_dirname[dirname] = self._for_folder(folder)
        return cached

    def _for_folder(self, folder: Path) -> Settings:
        """The settings of the files in ``folder`` (absolute), walking up."""
        walked: list[Path] = []
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
                if folder.parent == folder:
                    settings = self.selection.merged(Settings())
                folder = folder.parent
        for each in walked:
            self._by_folder[each] = settings
        return settings

    def _found_in(self, folder: Path) -> Settings | None:
        """The configuration in ``folder``, if any; OSError if the folder cannot be searched."""
        try:
            return self._look(folder, folder)
        except PermissionError:
            # Closed by an ancestor, maybe: below the working directory, a relative path does
            # not pass the ancestors.
            if self._cwd is None:
                self._cwd = absolute(".")
            if folder != self._cwd and self._cwd not in folder.parents:
                raise
            return self._look(folder, Path(os.path.relpath(folder, self._cwd)))

    def _look(self, folder: Path, reach: Path) -> Settings | None:
        """The configuration in ``folder``, looked for by the path ``reach``."""
        for name in (".tpuemb.toml", "pyproject.toml"):
            candidate, opened = folder / name, reach / name
            if _is_file(opened) and (
                name == ".tpuemb.toml" or _has_tpuemb_table(candidate, opened)
            ):
                settings = self._by_file.get(candidate) or self.selection.merged(
                    read(candidate, opened)
                )
                self._by_file[candidate] = settings
                return settings
        return None


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; OSError (permission denied) when its folder cannot be
    searched, which ``Path.is_file`` hides on some Python versions."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG):
            return False
        raise
