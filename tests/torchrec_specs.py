"""TorchRec specs in text, linted as `tpuemb check` lints them (for the rules' tests)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli import lint_string


def findings_of(text: str, tpu: str | None = None) -> list[tuple[Any, ...]]:
    """Each finding of the TorchRecSpec ``text``: (rule, path, message, fix)."""
    found = lint_string(text, "spec.pbtxt", message_type="TorchRecSpec", tpu=tpu, isolated=True)
    return [(f.rule, f.path, f.message, f.fix) for f in found]
