"""``tpuemb diff`` of two Keras-RS models: what loading the old one's saved weights into the new
one does, on the backend and TPU the new one's settings and ``--tpu`` give
(frontends/keras/compat/weights)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import CannotCompare, Layout
from tpuemb_cli.load import Document

KERAS = "keras"


def layout_keras(document: Document, facts: Any) -> Layout:
    return Layout(
        KERAS,
        "a Keras-RS model",
        f"{document.name}: cannot compare: it is a Keras-RS model, whose saved weights "
        "compare with another saved model's (tpuemb diff OLD.keras NEW.keras); "
        "--against-checkpoint compares a config or spec with a TensorFlow checkpoint",
        # A model with errors is one whose layer does not build where it trains (or builds other
        # tables than it says): refused as a spec with errors is.
        any_error_refuses=True,
    )


def changes_keras(
    name: str, old: Document | None, new: Document | None, engine: Any
) -> tuple[Document, list[Any]]:
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends.keras.compat.weights import KerasSide, NotCompared, weight_changes
    from tpuemb_cli.frontends.keras.spec.plan import topology_of

    if old is None or new is None:
        (shown,) = [d for d in (old, new) if d is not None]
        raise CannotCompare(
            f"{shown.name}: cannot compare: a Keras-RS model's saved weights compare with "
            "another Keras-RS model's only (tpuemb diff OLD.keras NEW.keras)"
        )
    assert new.message is not None and old.message is not None
    engine.settle(new.message)  # the backend and TPU of the new side's settings: its target
    topology = topology_of(new.message)
    try:
        changes = weight_changes(old.message, new.message, topology)
    except NotCompared as problem:
        # Named with the file whose layer it is. Not a skipped pair (exit 0): a CI job that
        # gates on diff must not pass a pair whose weights nothing compared (exit 2).
        where = old.name if problem.side == "old" else new.name
        raise CannotCompare(f"{where}: {problem}") from None
    return new, place(changes, KerasSide(old), KerasSide(new))
