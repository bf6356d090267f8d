"""The rule catalog: every rule, listed explicitly (no discovery magic), and loaded only when used.

Each rule is a module of this package (named after the rule: ``dynamic-tag-gap`` is
``dynamic_tag_gap.py``) whose docstring is its user documentation (``tpuemb rule CODE``). The
catalog below repeats what the engine must know before it imports a module -- code, name, default
severity, fix safety, which documents its checks run on, which findings it supersedes -- so that a
run imports only the rules its documents can trigger: a config never needs the spec and graph
rules, about forty modules. tests/test_catalog.py checks every entry against its module.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from tpuemb_cli.findings import Severity

if TYPE_CHECKING:
    from tpuemb_cli.rules.base import Rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Bumped whenever a rule is added or removed, or a rule's meaning changes (SARIF records it).
RULESET_VERSION = "1"


class Entry(NamedTuple):
    """A rule as the catalog lists it, before its module is imported."""

    code: str
    name: str
    severity: Severity
    fixable: str  # "safe", "unsafe" or "no"
    # The documents its checks run on: "config" (check_config), "optimizer" (check_optimizer, on
    # every OptimizationParameters), "spec" (check_spec), "graph" (check_graph); none for the
    # rules the loader or the engine reports.
    runs: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        return f"{__name__}.{self.name.replace('-', '_')}"


CATALOG: tuple[Entry, ...] = (
    # Parsing (reported by the loader)
    Entry("TE001", "invalid-syntax", ERROR, "no", ()),
    Entry("TE002", "unknown-field", ERROR, "no", ()),
    Entry("TE003", "oneof-conflict", ERROR, "no", ()),
    Entry("TE004", "unknown-enum-value", ERROR, "no", ()),
    Entry("TE005", "value-out-of-range", ERROR, "no", ()),
    Entry("TE006", "duplicate-field", ERROR, "no", ()),
    Entry("TE007", "invalid-value", ERROR, "no", ()),
    # Learning rates and dynamic tags
    Entry("TE101", "negative-dynamic-tag", ERROR, "no", ("optimizer",)),
    Entry("TE102", "dynamic-tag-gap", ERROR, "safe", ("config",)),
    Entry("TE103", "missing-learning-rate", WARNING, "no", ("optimizer",)),
    Entry("TE104", "invalid-learning-rate", ERROR, "no", ("optimizer",)),
    Entry("TE105", "zero-learning-rate", WARNING, "no", ("optimizer",)),
    # Optimizer algorithms
    Entry("TE201", "missing-optimizer-algorithm", ERROR, "no", ("optimizer",)),
    Entry("TE202", "adam-beta-out-of-range", ERROR, "no", ("optimizer",)),
    Entry("TE203", "adam-epsilon-not-positive", ERROR, "no", ("optimizer",)),
    Entry("TE204", "non-lazy-adam-without-accumulation", ERROR, "no", ("optimizer",)),
    Entry("TE205", "adagrad-momentum-epsilon-not-positive", ERROR, "no", ("optimizer",)),
    Entry("TE206", "adagrad-momentum-exponent-not-positive", ERROR, "no", ("optimizer",)),
    Entry("TE207", "ftrl-positive-lr-power", ERROR, "no", ("optimizer",)),
    Entry("TE208", "ftrl-negative-regularization", ERROR, "no", ("optimizer",)),
    Entry("TE209", "deprecated-allow-zero-accumulator", WARNING, "safe", ("optimizer",)),
    Entry("TE210", "non-finite-float", ERROR, "no", ("optimizer",)),
    # Clipping, decay, accumulation, packing, quantization, enums
    Entry("TE301", "reversed-clipping-range", ERROR, "unsafe", ("optimizer",)),
    Entry("TE302", "pinned-clipping-range", WARNING, "no", ("optimizer",)),
    Entry("TE303", "gradient-clipping-without-accumulation", ERROR, "no", ("optimizer",)),
    Entry("TE304", "invalid-weight-decay", ERROR, "no", ("optimizer",)),
    Entry("TE305", "ineffective-weight-decay-multiplier", WARNING, "safe", ("optimizer",)),
    Entry("TE306", "low-dimensional-packing-dimension", WARNING, "no", ("config",)),
    Entry("TE307", "invalid-simulated-quantization", ERROR, "no", ("optimizer",)),
    Entry("TE308", "undeclared-enum-value", ERROR, "no", ("config", "optimizer")),
    # Tables and features
    Entry("TE401", "empty-table-name", ERROR, "no", ("config",)),
    Entry("TE402", "duplicate-table-name", ERROR, "no", ("config",)),
    Entry("TE403", "invalid-table-size", ERROR, "no", ("config",)),
    Entry("TE404", "vocabulary-below-num-hosts", WARNING, "no", ("config",)),
    Entry("TE405", "missing-optimization-parameters", ERROR, "no", ("config",)),
    Entry("TE406", "unused-table", WARNING, "no", ("config",)),
    Entry("TE407", "table-id-out-of-range", ERROR, "no", ("config",)),
    Entry("TE408", "negative-input-shape", ERROR, "no", ("config",)),
    Entry("TE409", "duplicate-feature-name", WARNING, "no", ("config",)),
    Entry("TE410", "unknown-activation-shapes", ERROR, "no", ("config",)),
    # Topology
    Entry("TE501", "unspecified-mode", ERROR, "no", ("config",)),
    Entry("TE502", "invalid-core-count", ERROR, "no", ("config",)),
    Entry("TE503", "cores-not-multiple-of-hosts", WARNING, "no", ("config",)),
    Entry("TE504", "pipelining-outside-training", WARNING, "no", ("config",)),
    Entry("TE505", "invalid-spmd-sharding", ERROR, "no", ("config",)),
    # Embedding specs (the compiled config is checked by the rules above, too)
    Entry("TE701", "spec-invalid-table", ERROR, "no", ("spec",), supersedes=("TE403",)),
    Entry("TE702", "spec-duplicate-table-name", ERROR, "no", ("spec",), supersedes=("TE402",)),
    Entry("TE703", "spec-undefined-table", ERROR, "no", ("spec",)),
    Entry("TE704", "spec-unused-table", WARNING, "no", ("spec",)),
    Entry("TE705", "spec-missing-optimizer", ERROR, "no", ("spec",), supersedes=("TE405",)),
    Entry(
        "TE706",
        "spec-invalid-optimizer-argument",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE202", "TE203", "TE204", "TE205", "TE206"),
    ),
    Entry(
        "TE707",
        "spec-invalid-clipping",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE301", "TE302", "TE303"),
    ),
    Entry("TE708", "spec-invalid-quantization", ERROR, "no", ("spec",), supersedes=("TE307",)),
    Entry("TE711", "spec-undefined-schedule", ERROR, "no", ("spec",)),
    Entry("TE712", "spec-unused-schedule", WARNING, "no", ("spec",)),
    Entry("TE713", "spec-pinned-tag", ERROR, "no", ("spec",)),
    Entry("TE721", "spec-optimizer-override", INFO, "no", ("spec",)),
    Entry("TE722", "spec-dropped-weight-decay", WARNING, "no", ("spec",)),
    Entry("TE723", "spec-invalid-feature", ERROR, "no", ("spec",), supersedes=("TE408", "TE410")),
    Entry(
        "TE724",
        "spec-invalid-topology",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE502", "TE503", "TE505"),
    ),
    Entry("TE730", "spec-drift", ERROR, "no", ()),
    # Graphs: the ops that consume embedding configs, and gradient accumulators
    Entry("TE801", "embedding-op-malformed-config", ERROR, "no", ("graph",)),
    Entry("TE802", "learning-rate-count-mismatch", ERROR, "no", ("graph",)),
    Entry("TE803", "gradient-count-mismatch", ERROR, "no", ("graph",)),
    Entry("TE804", "embedding-config-mismatch", ERROR, "no", ("graph",)),
    Entry("TE805", "learning-rate-input-type", ERROR, "no", ("graph",)),
    Entry("TE806", "gradient-shape-mismatch", ERROR, "no", ("graph",)),
    Entry("TE811", "accumulator-dtype-mismatch", ERROR, "no", ("graph",)),
    Entry("TE812", "accumulator-num-required", ERROR, "no", ("graph",)),
    Entry("TE813", "accumulator-shape-mismatch", ERROR, "no", ("graph",)),
    Entry("TE814", "accumulator-reduction-type", ERROR, "no", ("graph",)),
    Entry("TE821", "cudnn-rnn-invalid-attribute", ERROR, "no", ("graph",)),
    Entry("TE822", "cudnn-backprop-mismatch", ERROR, "no", ("graph",)),
    Entry("TE823", "cudnn-skip-input-size", ERROR, "no", ("graph",)),
    Entry("TE824", "cudnn-num-proj", ERROR, "no", ("graph",)),
    Entry("TE825", "cudnn-state-shape", ERROR, "no", ("graph",)),
    Entry("TE826", "cudnn-params-size", ERROR, "no", ("graph",)),
    # Suppressions (reported by the engine)
    Entry("TE901", "invalid-suppression", WARNING, "no", ()),
    Entry("TE902", "unused-suppression", WARNING, "safe", ()),
)
BY_CODE: dict[str, Entry] = {entry.code: entry for entry in CATALOG}
BY_NAME: dict[str, Entry] = {entry.name: entry for entry in CATALOG}


@cache
def load(code: str) -> Rule:
    """The rule with ``code``, its module imported."""
    from tpuemb_cli.rules.base import Rule

    return Rule.from_module(importlib.import_module(BY_CODE[code].module))


def all_rules() -> tuple[Rule, ...]:
    """Every rule, in catalog order (imports every rule module: for docs, SARIF, `tpuemb rules`)."""
    return tuple(load(entry.code) for entry in CATALOG)


def find(key: str) -> Entry | None:
    """A rule by code (``TE101``, any case) or name (``negative-dynamic-tag``)."""
    return BY_CODE.get(key.upper()) or BY_NAME.get(key.lower())
