"""How ``tpuemb diff`` compares TorchRec specs: their checkpoint family."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.compat.layouts import Layout

if TYPE_CHECKING:
    from tpuemb_cli.load import Document


def layout_torchrec(document: Document, facts: Any) -> Layout:
    return Layout(
        None,
        "a TorchRec spec",
        against_checkpoint=(
            f"{document.name}: a TorchRec spec is saved in a PyTorch distributed checkpoint, "
            "not a TensorFlow one"
        ),
    )
