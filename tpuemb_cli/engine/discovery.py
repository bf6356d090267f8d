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

from tpuemb_cli.engine.settings import Selection, Settings, absolute, configured, read


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
        # Each folder is looked in once (``_by_folder`` keeps what its walk found), and each
        # configuration file read once: pyproject.toml is parsed for its table and its settings
        # together.
        for name in (".tpuemb.toml", "pyproject.toml"):
            if _is_file(reach / name):
                found = configured(folder / name, reach / name)
                if found is not None:
                    return self.selection.merged(found)
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
