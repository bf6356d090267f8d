"""Rules for TorchRec on TPU SparseCores (torchrec 1.9.2, ``torchrec.experimental.torch_tpu``):
what its table stacking, its fused collections and its checkpoint code refuse -- said before
anything runs, in the user's words rather than the library's -- and what they accept and get
wrong. Their catalog rows, appended to tpuemb's; one module each here, whose docstring is its
documentation and whose ``check_torchrec(spec, facts)`` yields violations by field path."""

from __future__ import annotations

from tpuemb_cli.model.findings import Severity
from tpuemb_cli.rules import Entry

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_RUNS = ("torchrec",)


def _entry(code: str, name: str, severity: Severity, fixable: str = "no") -> Entry:
    return Entry(code, name, "torchrec", severity, fixable, _RUNS, home=__name__)


CATALOG = (
    _entry("TE841", "torchrec-duplicate-table-name", ERROR),
    _entry("TE842", "torchrec-unknown-stack-table", ERROR),
    _entry("TE843", "torchrec-empty-stack", ERROR),
    _entry("TE844", "torchrec-incompatible-stack", ERROR),
    _entry("TE845", "torchrec-missing-max-seq-len", ERROR),
    _entry("TE846", "torchrec-excess-padding", WARNING),
    _entry("TE847", "torchrec-batch-not-divisible", ERROR),
    _entry("TE848", "torchrec-unsupported-optimizer", ERROR),
    _entry("TE849", "torchrec-zero-size", ERROR),
    _entry("TE859", "torchrec-stack-over-16-gib", WARNING),
)
