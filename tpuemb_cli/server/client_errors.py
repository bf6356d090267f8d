"""A client message pygls cannot read is one line in the editor's log, not a traceback.

pygls logs such a message -- an answer of the wrong shape, like ``null`` for
``workspace/applyEdit`` -- with the whole cattrs exception group (``Unable to deserialize
message`` and some thirty lines of traceback) on standard error, which editors show as the
server's log: it reads as tpuemb crashing when the client sent something the protocol does not
allow. The server answers or drops the message as before; only the log line changes, to what was
not read and why.
"""

from __future__ import annotations

import logging

_PREFIX = "Unable to deserialize message"
_LOGGER = "pygls.protocol.json_rpc"


def _summary(text: str) -> str:
    """``ApplyWorkspaceEditResponse: TypeError: argument of type 'NoneType' is not iterable``:
    the type being read and the innermost error, from a formatted exception (group)."""
    lines = [line.strip(" |+-") for line in text.splitlines()]
    # The exception lines ("TypeError: ...", "cattrs.errors.ClassValidationError: ..."), not the
    # source lines or frames between them.
    raised = [
        line
        for line in lines
        if ": " in line
        and line.split(": ", 1)[0].replace(".", "").isidentifier()
        and not line.startswith(("File ", "Structuring", "Traceback"))
    ]
    if not raised:
        return next((line for line in reversed(lines) if line), "no details")
    error = raised[-1]
    structuring = next((line for line in raised if "While structuring " in line), "")
    if structuring and structuring is not error:
        what = structuring.split("While structuring ", 1)[1].split(" (", 1)[0]
        return f"{what}: {error}"
    return error


class OneLine(logging.Filter):
    """Rewrites pygls's "Unable to deserialize message" records to one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(_PREFIX):
            text = "\n".join(str(arg) for arg in record.args or ()) if record.args else ""
            record.msg = "tpuemb server: a client message could not be read (%s)"
            record.args = (_summary(text or record.getMessage()),)
            record.exc_info = None
            record.exc_text = None
        return True


def install() -> None:
    logging.getLogger(_LOGGER).addFilter(OneLine())
