"""``initialized``: the settings' problems found at ``initialize`` are shown
(``window/showMessage``: the editor is ready for them now), and the server asks the editor, if
it can, to watch the configuration files and the statistics they name (a change re-lints the
open documents:
``did_change_watched_files``)."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.linting import CONFIG_FILES, STATS_FILES
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.INITIALIZED
OPTIONS = None

CONFIG_GLOBS = tuple(f"**/{name}" for name in (*CONFIG_FILES, *STATS_FILES))


async def handle(ls: TpuembServer, params: lsp.InitializedParams) -> None:
    for warning in ls.warnings:
        ls.warn(warning)
    ls.warnings = []
    watch = ls.client_capabilities.workspace
    dynamic = (
        watch is not None
        and watch.did_change_watched_files is not None
        and watch.did_change_watched_files.dynamic_registration
    )
    if not dynamic:
        return
    watchers = [lsp.FileSystemWatcher(glob_pattern=glob) for glob in CONFIG_GLOBS]
    registration = lsp.Registration(
        id="tpuemb-configuration",
        method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
    )
    try:
        await ls.client_register_capability_async(
            lsp.RegistrationParams(registrations=[registration])
        )
    except Exception as refused:  # the client said it could, then did not: saves still work
        ls.log("warn", f"configuration files are not watched: {refused}")
