"""The JSON-RPC rules of LSP that pygls leaves to the server: every request gets an answer.

pygls drops a request whose params do not fit the protocol's types (a position at line -1, or
past 2^31 - 1) without a word -- the editor waits for ever -- answers a request before
``initialize`` with a traceback, and drops requests after ``shutdown``. Here:

- a request whose params do not fit: ``InvalidParams`` (-32602), saying which value is wrong;
- a request before ``initialize``: ``ServerNotInitialized`` (-32002); a notification then is
  dropped, except ``exit`` (the protocol says so);
- a request after ``shutdown``: ``InvalidRequest`` (-32600);
- a bug in a handler: ``InternalError`` (-32603) with the exception's one line; the traceback
  goes to the server's log (stderr), not to the editor;
- an answer of the editor's that does not fit (``null`` where an object is due): the server's
  request fails with it, and whoever waits on it goes on.

It also keeps the exit status the protocol asks for: 0 after ``shutdown`` then ``exit``, 1 for
``exit`` alone (or an editor that went away without saying ``exit``).
"""

from __future__ import annotations

import sys
from typing import Any

from cattrs.errors import ClassValidationError
from lsprotocol import types as lsp
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol

# A request may come before `initialize` only as `initialize` itself; `exit` is the one
# notification that is not dropped then.
_ALLOWED_FIRST = {lsp.INITIALIZE, lsp.EXIT}


class Refused:
    """A request already answered with an error while it was read (its params did not fit)."""

    jsonrpc = "2.0"  # so that pygls's message checks pass it on to ``handle_message``


class TpuembProtocol(LanguageServerProtocol):
    """pygls's protocol, answering every request (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialized = False
        self.shut_down = False
        self.exit_status = 1  # until the editor says shutdown, then exit

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" not in data:
                return self._unreadable_response(data["id"], error)
            if not ("id" in data and isinstance(data.get("method"), str)):
                raise  # a notification: there is no one to answer
            wrong = _leaves(error.__cause__) if error.__cause__ is not None else []
            message = f"invalid params for {data['method']}: " + (
                "; ".join(wrong) or "they do not fit the protocol's types"
            )
            self._send_response(data["id"], error=JsonRpcInvalidParams(message).to_response_error())
            return Refused()

    def _unreadable_response(self, msg_id: Any, error: JsonRpcException) -> Refused:
        """The editor's answer to a request of the server's does not fit its type (``null`` for
        ``workspace/applyEdit``): the request fails with what was wrong, rather than waiting
        for ever (and the command that sent it with it)."""
        wrong = _leaves(error.__cause__) if error.__cause__ is not None else []
        message = "the editor's answer does not fit the protocol's types: " + (
            "; ".join(wrong) or "unreadable"
        )
        self._handle_response(msg_id, error=lsp.ResponseError(code=error.code, message=message))
        return Refused()

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Refused):
            return
        method = getattr(message, "method", None)
        is_request = method is not None and getattr(message, "id", None) is not None
        if not self.initialized and method is not None and method not in _ALLOWED_FIRST:
            if is_request:
                refused = JsonRpcServerNotInitialized(f"{method} before initialize")
                self._send_response(message.id, error=refused.to_response_error())
            return
        if self.shut_down and is_request:
            invalid = JsonRpcInvalidRequest(f"{method} after shutdown")
            self._send_response(message.id, error=invalid.to_response_error())
            return
        if method == lsp.INITIALIZE:
            self.initialized = True
        elif method == lsp.SHUTDOWN:
            self.shut_down = True
        elif method == lsp.EXIT:
            self.exit_status = 0 if self.shut_down else 1
        super().handle_message(message)

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: lsp.ResponseError | None = None
    ) -> None:
        # pygls sends a handler's exception with its traceback: the traceback is for the log.
        if error is not None and error.code == JsonRpcInternalError.CODE and error.data:
            frames = error.data.get("traceback") if isinstance(error.data, dict) else None
            if frames:
                sys.stderr.write(
                    f"tpuemb server: internal error answering request {msg_id}:\n"
                    f"Traceback (most recent call last):\n{''.join(frames)}{error.message}\n"
                )
            error = lsp.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result=result, error=error)


def _leaves(error: BaseException) -> list[str]:
    """What is wrong, from cattrs's nested validation errors: their innermost messages."""
    if isinstance(error, ClassValidationError):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    if isinstance(error, KeyError):
        return [f"`{error.args[0]}` is missing"]
    return [str(error) or type(error).__name__]
