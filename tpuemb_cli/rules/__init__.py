"""The rule catalog: the one place a rule's metadata lives, and the registry the engine runs from.

Every rule is one row below -- code, name, family, default severity, fix safety, the documents its
checks run on, the findings it supersedes -- and one module, ``rules/<family>/<name>.py`` (the
name with ``_`` for ``-``: ``dynamic-tag-gap`` is ``rules/config/dynamic_tag_gap.py``), whose
docstring is its user documentation (``tpuemb rule CODE``) and whose functions are its checks.
Rows are listed explicitly (no discovery magic) and modules are imported only when used, so a run
imports only the rules its documents can trigger: a config never needs the spec and graph rules.

To add a rule: write its module in its family's folder, add its row here, and its test module in
``tests/rules/``.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from tpuemb_cli import frontends
from tpuemb_cli.model.findings import Severity
from tpuemb_cli.model.records import Record
from tpuemb_cli.rules.base import CHECKS

if TYPE_CHECKING:
    from tpuemb_cli.rules.base import Rule

__all__ = [
    "BY_CODE",
    "BY_NAME",
    "CATALOG",
    "CHANGES",
    "CHECKS",
    "SHARED",
    "Entry",
    "all_rules",
    "command_codes",
    "find",
    "load",
]

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Bumped whenever a rule is added or removed, or a rule's meaning changes (SARIF records it).
RULESET_VERSION = "31"

# The families, each a subpackage: the loader's parse problems, one OptimizationParameters, a
# whole config, a config's memory on a known TPU, a SparseCore spec, a JAX SparseCore stacked
# layout (jax-tpu-embedding's EmbeddingSpecProto), a Keras-RS model, a spec, a graph, and the
# suppressions the engine reports on, and the kinds of change `tpuemb diff` reports.
FAMILIES: tuple[str, ...] = (
    "parse",
    "optimizer",
    "config",
    "memory",
    "stats",
    "sparsecore",
    "jax",
    "keras",
    "spec",
    "graph",
    "suppression",
    "diff",
)


class Entry(Record):
    """A rule as the catalog lists it, before its module is imported."""

    code: str
    name: str
    family: str
    severity: Severity
    fixable: str  # "safe", "unsafe" or "no"
    # The documents its checks run on (keys of CHECKS); none for the rules whose findings the
    # loader (parse problems) or the engine (suppressions) reports.
    runs: tuple[str, ...] = ()
    # Config rules whose findings on a compiled spec this spec rule reports better, at the spec's
    # own fields (so one mistake is reported once).
    supersedes: tuple[str, ...] = ()
    # Fields (by name, anywhere in the document) whose value failing to load explains this
    # rule's findings: a misspelt `learning_rate` leaves every schedule unused; "@algorithm" is
    # any optimizer algorithm (a misspelt `adagrd {}` leaves a table with no algorithm).
    # Findings at or under the failed field itself give way for every rule; these are the
    # ones elsewhere.
    follows: tuple[str, ...] = ()
    # For a config rule: whether it judges the config a SparseCore spec compiles to. False where
    # it would say again what a SparseCore rule says better, or judge a setting by what
    # TPUEmbedding on TensorCores does with it when TPUEmbeddingV2 never passes it on: TE201 (no
    # optimizer algorithm) is TE664's `custom` optimizer; weight decay (TE304, TE305) is TE663's
    # error whatever its value; clipping (TE301-TE303), non-lazy Adam without accumulation
    # (TE204), FTRL's allow_zero_accumulator (TE209) and low-dimensional packing (TE306) are
    # settings TE662 reports dropped.
    on_sparsecore: bool = True
    # The package of its module when it is not the family's folder here: a front-end's rules
    # (`tpuemb_cli.frontends.<name>.rules`).
    home: str = ""
    # For a rule that checks one variant of its documents only -- an optimizer rule of one
    # algorithm: the field of OptimizationParameters' `parameters` oneof whose settings it
    # checks -- that variant: the engine runs the rule, and imports its module, only on documents
    # of that variant (a config of SGD tables imports no Adam rule). tests/test_catalog.py runs
    # each such rule on every other variant and requires it to find nothing there.
    variant: str = ""
    # Fields (by name, anywhere in the message its checks are given) one of which that message
    # must set for the rule to find anything in it: the clipping rules find nothing in optimizer
    # settings without clipping limits. Where the front-end hands the engine the message
    # (Engine.rules), the engine imports and runs the rule only on a message that sets one: a
    # one-table config imports no clipping, decay, quantization or sharding rule.
    # tests/test_catalog.py runs each such rule on messages that set every other field and
    # requires it to find nothing.
    needs: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        package = self.home or HOMES.get(self.family) or f"{__name__}.{self.family}"
        return f"{package}.{self.name.replace('-', '_')}"


# The families whose rules live in a front-end's package (its `rules/`), not in a folder here.
HOMES = {
    "graph": "tpuemb_cli.frontends.tensorflow.rules",
    "jax": "tpuemb_cli.frontends.jax.rules",
    "keras": "tpuemb_cli.frontends.keras.rules",
}

CATALOG: tuple[Entry, ...] = (
    # Parsing (reported by the loader)
    Entry("TE001", "invalid-syntax", "parse", ERROR, "no", ()),
    Entry("TE002", "unknown-field", "parse", ERROR, "no", ()),
    Entry("TE003", "oneof-conflict", "parse", ERROR, "no", ()),
    Entry("TE004", "unknown-enum-value", "parse", ERROR, "no", ()),
    Entry("TE005", "value-out-of-range", "parse", ERROR, "no", ()),
    Entry("TE006", "duplicate-field", "parse", ERROR, "no", ()),
    Entry("TE007", "invalid-value", "parse", ERROR, "no", ()),
    Entry("TE008", "misnamed-file", "parse", INFO, "no", ()),
    Entry("TE009", "not-an-embedding-document", "parse", ERROR, "no", ()),
    # Reported by the engine and the CLI: tpuemb itself failed on the file (exit code 2).
    Entry("TE010", "internal-error", "parse", ERROR, "no", ()),
    # Learning rates and dynamic tags
    Entry(
        "TE101",
        "negative-dynamic-tag",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        needs=("dynamic",),
    ),
    Entry("TE102", "dynamic-tag-gap", "config", ERROR, "safe", ("config",), needs=("dynamic",)),
    Entry(
        "TE103",
        "missing-learning-rate",
        "optimizer",
        WARNING,
        "no",
        ("optimizer",),
        follows=("optimizer",),
    ),
    Entry("TE104", "invalid-learning-rate", "optimizer", ERROR, "no", ("optimizer",)),
    Entry("TE105", "zero-learning-rate", "optimizer", WARNING, "no", ("optimizer",)),
    # Optimizer algorithms
    Entry(
        "TE201",
        "missing-optimizer-algorithm",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        on_sparsecore=False,
        follows=("@algorithm", "optimizer"),
    ),
    Entry(
        "TE202", "adam-beta-out-of-range", "optimizer", ERROR, "no", ("optimizer",), variant="adam"
    ),
    Entry(
        "TE203",
        "adam-epsilon-not-positive",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        variant="adam",
    ),
    Entry(
        "TE204",
        "non-lazy-adam-without-accumulation",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        on_sparsecore=False,
        variant="adam",
    ),
    Entry(
        "TE205",
        "adagrad-momentum-epsilon-not-positive",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        variant="adagrad_momentum",
    ),
    Entry(
        "TE206",
        "adagrad-momentum-exponent-not-positive",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        variant="adagrad_momentum",
    ),
    Entry(
        "TE207", "ftrl-positive-lr-power", "optimizer", ERROR, "no", ("optimizer",), variant="ftrl"
    ),
    Entry(
        "TE208",
        "ftrl-negative-regularization",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        variant="ftrl",
    ),
    Entry(
        "TE209",
        "deprecated-allow-zero-accumulator",
        "optimizer",
        WARNING,
        "safe",
        ("optimizer",),
        on_sparsecore=False,
        variant="ftrl",
    ),
    Entry("TE210", "non-finite-float", "optimizer", ERROR, "no", ("optimizer",)),
    # Clipping, decay, accumulation, packing, quantization, enums
    Entry(
        "TE301",
        "reversed-clipping-range",
        "optimizer",
        ERROR,
        "unsafe",
        ("optimizer",),
        on_sparsecore=False,
        needs=("clipping_limits", "gradient_clipping_limits"),
    ),
    Entry(
        "TE302",
        "pinned-clipping-range",
        "optimizer",
        WARNING,
        "no",
        ("optimizer",),
        on_sparsecore=False,
        needs=("clipping_limits", "gradient_clipping_limits"),
    ),
    Entry(
        "TE303",
        "gradient-clipping-without-accumulation",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        on_sparsecore=False,
        needs=("gradient_clipping_limits",),
    ),
    Entry(
        "TE304",
        "invalid-weight-decay",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        on_sparsecore=False,
        needs=("weight_decay_factor",),
    ),
    Entry(
        "TE305",
        "ineffective-weight-decay-multiplier",
        "optimizer",
        WARNING,
        "safe",
        ("optimizer",),
        on_sparsecore=False,
        needs=("multiply_weight_decay_factor_by_learning_rate",),
    ),
    Entry(
        "TE306",
        "low-dimensional-packing-dimension",
        "config",
        WARNING,
        "no",
        ("config",),
        on_sparsecore=False,
        follows=("dimension", "dim"),
        needs=("low_dimensional_packing_status",),
    ),
    Entry(
        "TE307",
        "invalid-simulated-quantization",
        "optimizer",
        ERROR,
        "no",
        ("optimizer",),
        needs=("simulated_quantization",),
    ),
    Entry("TE308", "undeclared-enum-value", "config", ERROR, "no", ("config", "optimizer")),
    # Tables and features
    Entry("TE401", "empty-table-name", "config", ERROR, "no", ("config",)),
    Entry("TE402", "duplicate-table-name", "config", ERROR, "no", ("config",)),
    Entry("TE403", "invalid-table-size", "config", ERROR, "no", ("config",)),
    Entry("TE404", "vocabulary-below-num-hosts", "config", ERROR, "no", ("config",)),
    Entry("TE405", "missing-optimization-parameters", "config", ERROR, "no", ("config",)),
    Entry("TE406", "unused-table", "config", ERROR, "no", ("config",), follows=("table_id",)),
    Entry("TE407", "table-id-out-of-range", "config", ERROR, "no", ("config",)),
    Entry("TE408", "negative-input-shape", "config", ERROR, "no", ("config",)),
    Entry("TE409", "duplicate-feature-name", "config", WARNING, "no", ("config",)),
    Entry("TE410", "unknown-activation-shapes", "config", ERROR, "no", ("config",)),
    Entry(
        "TE411", "empty-input-shape", "config", ERROR, "no", ("config",), follows=("input_shape",)
    ),
    Entry(
        "TE412",
        "feature-counts-with-feature-descriptors",
        "config",
        ERROR,
        "no",
        ("config",),
        needs=("batch_size_per_tensor_core", "num_features"),
    ),
    # Topology
    Entry("TE501", "unspecified-mode", "config", ERROR, "no", ("config",)),
    Entry("TE502", "invalid-core-count", "config", ERROR, "no", ("config",)),
    Entry("TE503", "cores-not-multiple-of-hosts", "config", WARNING, "no", ("config",)),
    Entry(
        "TE504",
        "pipelining-outside-training",
        "config",
        WARNING,
        "no",
        ("config",),
        needs=("pipeline_execution_with_tensor_core",),
    ),
    Entry(
        "TE505",
        "invalid-spmd-sharding",
        "config",
        ERROR,
        "no",
        ("config",),
        needs=("spmd_sharding",),
    ),
    # Memory on the TPU the config runs on (--tpu, `tpu` in the settings, a spec's accelerator)
    Entry("TE601", "embedding-state-exceeds-hbm", "memory", ERROR, "no", ("memory",)),
    Entry("TE602", "embedding-state-near-hbm", "memory", WARNING, "no", ("memory",)),
    Entry("TE603", "tpu-slice-mismatch", "memory", WARNING, "no", ("memory",)),
    # A document's input limits against statistics measured for its stacks (`--stats`).
    Entry("TE611", "limit-below-measured", "stats", ERROR, "safe", ("stats",)),
    Entry("TE612", "limit-far-above-measured", "stats", WARNING, "unsafe", ("stats",)),
    Entry("TE613", "stats-unmatched-stack", "stats", WARNING, "no", ("stats",)),
    # SparseCore: specs with a `sparse_core` section, as TPUEmbeddingV2 runs them
    Entry("TE651", "sparsecore-first-table-batch-size", "sparsecore", INFO, "no", ("spec",)),
    Entry("TE652", "sparsecore-unmatched-limit-key", "sparsecore", WARNING, "no", ("spec",)),
    Entry("TE653", "sparsecore-padding-waste", "sparsecore", INFO, "no", ("spec",)),
    Entry(
        "TE661",
        "sparsecore-missing-output-shape",
        "sparsecore",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE411",),
        follows=("output_shape",),
    ),
    Entry("TE662", "sparsecore-dropped-optimizer-setting", "sparsecore", WARNING, "no", ("spec",)),
    Entry("TE663", "sparsecore-weight-decay", "sparsecore", ERROR, "no", ("spec",)),
    Entry("TE664", "sparsecore-unsupported-optimizer", "sparsecore", ERROR, "no", ("spec",)),
    Entry("TE665", "sparsecore-global-batch-output-shape", "sparsecore", WARNING, "no", ("spec",)),
    Entry("TE666", "sparsecore-samples-not-divisible", "sparsecore", ERROR, "no", ("spec",)),
    # JAX SparseCore: a jax-tpu-embedding EmbeddingSpecProto the library could not have written
    Entry(
        "TE671",
        "jax-coo-buffer-too-large",
        "jax",
        ERROR,
        "no",
        ("jax", "jax_spec", "memory"),
        follows=(
            "max_ids_per_partition",
            "num_sparsecores",
            "stack_max_ids_per_partition",
            "global_device_count",
            "num_sc_per_device",
        ),
    ),
    Entry("TE672", "jax-non-finite-optimizer-setting", "jax", ERROR, "no", ("jax", "jax_spec")),
    Entry("TE681", "jax-no-sparsecores", "jax", ERROR, "no", ("jax",)),
    Entry(
        "TE682",
        "jax-stack-vocabulary-mismatch",
        "jax",
        ERROR,
        "no",
        ("jax",),
        follows=("stack_vocab_size", "padded_vocab_size"),
    ),
    Entry(
        "TE683",
        "jax-misaligned-padding",
        "jax",
        ERROR,
        "no",
        ("jax",),
        follows=(
            "vocab_size",
            "padded_vocab_size",
            "embedding_dim",
            "padded_embedding_dim",
            "num_sparsecores",
        ),
    ),
    Entry(
        "TE684",
        "jax-table-dim-mismatch",
        "jax",
        ERROR,
        "no",
        ("jax",),
        follows=("embedding_dim", "padded_embedding_dim", "stack_embedding_dim"),
    ),
    Entry(
        "TE685",
        "jax-table-outside-stack",
        "jax",
        ERROR,
        "no",
        ("jax",),
        follows=(
            "stack_vocab_size",
            "num_sparsecores",
            "padded_vocab_size",
            "row_offset_in_shard",
            "shard_rotation",
        ),
    ),
    Entry(
        "TE686",
        "jax-feature-outside-stack",
        "jax",
        ERROR,
        "no",
        ("jax",),
        follows=(
            "total_sample_count",
            "output_shape",
            "row_offset",
            "col_offset",
            "col_shift",
            "row_offset_in_shard",
            "shard_rotation",
            "num_sparsecores",
        ),
    ),
    Entry("TE687", "jax-invalid-partition-limit", "jax", ERROR, "no", ("jax",)),
    Entry(
        "TE688",
        "jax-unique-limit-above-limit",
        "jax",
        WARNING,
        "no",
        ("jax",),
        follows=("max_ids_per_partition", "max_unique_ids_per_partition"),
    ),
    Entry(
        "TE689",
        "jax-partition-limit-below-batch",
        "jax",
        WARNING,
        "no",
        ("jax",),
        follows=("max_ids_per_partition", "input_shape", "output_shape", "num_sparsecores"),
    ),
    Entry(
        "TE690",
        "jax-output-dim-mismatch",
        "jax",
        ERROR,
        "no",
        ("jax", "jax_spec"),
        follows=("embedding_dim", "padded_embedding_dim", "dim", "output_shape"),
    ),
    # JAX SparseCore: jax-tpu-embedding's FeatureSpecs (a spec with a `jax` section)
    Entry("TE676", "jax-unhashable-optimizer", "jax", ERROR, "no", ("jax_spec",)),
    Entry("TE677", "jax-stacking-drops-setting", "jax", WARNING, "no", ("jax_spec",)),
    Entry(
        "TE678",
        "jax-excess-padding",
        "jax",
        WARNING,
        "no",
        ("jax_spec",),
        # fail_on_excess_padding: whether the library warns or raises, which TE678 words.
        follows=(
            "dim",
            "vocabulary_size",
            "global_device_count",
            "num_sc_per_device",
            "fail_on_excess_padding",
        ),
    ),
    Entry(
        "TE679",
        "jax-batch-mismatch",
        "jax",
        ERROR,
        "no",
        ("jax", "jax_spec"),
        follows=("input_shape", "output_shape"),
    ),
    Entry(
        "TE691",
        "jax-batch-not-divisible",
        "jax",
        ERROR,
        "no",
        ("jax_spec",),
        follows=("output_shape", "input_shape", "global_device_count", "num_sc_per_device"),
    ),
    Entry("TE692", "jax-stack-mixed-settings", "jax", ERROR, "no", ("jax_spec",)),
    Entry("TE693", "jax-ignored-table-limit", "jax", WARNING, "no", ("jax_spec",)),
    Entry("TE694", "jax-zero-size", "jax", ERROR, "no", ("jax_spec",)),
    Entry("TE695", "jax-duplicate-feature-name", "jax", ERROR, "no", ("jax_spec", "jax")),
    Entry(
        "TE696",
        "jax-invalid-stacking",
        "jax",
        ERROR,
        "no",
        ("jax_spec",),
        follows=("output_shape", "stack_position"),
    ),
    Entry("TE697", "jax-duplicate-name", "jax", ERROR, "no", ("jax",)),
    Entry(
        "TE698",
        "jax-coo-buffer-above-max",
        "jax",
        ERROR,
        "no",
        ("jax_spec",),
        follows=(
            "suggested_coo_buffer_size_per_device",
            "max_ids_per_partition",
            "global_device_count",
            "num_sc_per_device",
        ),
    ),
    Entry("TE699", "jax-unknown-table", "jax", ERROR, "no", ("jax_spec",)),
    # Keras-RS DistributedEmbedding layers (a Keras model's config.json); the spec each layer
    # converts to runs its backend's rules, and these report what Keras-RS does before that.
    Entry(
        "TE761",
        "keras-output-dim-mismatch",
        "keras",
        ERROR,
        "no",
        ("keras",),
        supersedes=("TE690",),
    ),
    Entry(
        "TE762",
        "keras-unsupported-optimizer-option",
        "keras",
        ERROR,
        "no",
        ("keras",),
        # An optimizer the conversion refuses reaches the spec as a custom one: TE664 on
        # TPUEmbeddingV2, TE201 (no algorithm) on TPUEmbedding (v1).
        supersedes=("TE664", "TE201"),
    ),
    Entry("TE763", "keras-dropped-optimizer-option", "keras", WARNING, "no", ("keras",)),
    Entry("TE764", "keras-invalid-placement", "keras", ERROR, "no", ("keras",)),
    Entry(
        "TE765",
        "keras-invalid-output-shape",
        "keras",
        ERROR,
        "no",
        ("keras",),
        supersedes=("TE661",),
    ),
    Entry("TE766", "keras-unsupported-table-stacking", "keras", ERROR, "no", ("keras",)),
    Entry("TE767", "keras-ignored-table-stacking", "keras", ERROR, "no", ("keras",)),
    Entry("TE768", "keras-auto-placement-on-tensorcores", "keras", WARNING, "no", ("keras",)),
    Entry("TE769", "keras-ignored-table-optimizer", "keras", WARNING, "no", ("keras",)),
    Entry("TE770", "keras-table-stacking-stacks-nothing", "keras", WARNING, "no", ("keras",)),
    Entry("TE771", "keras-duplicate-table-name", "keras", ERROR, "no", ("keras",)),
    Entry("TE772", "keras-duplicate-feature-path", "keras", ERROR, "no", ("keras",)),
    Entry("TE773", "keras-tables-not-saved", "keras", WARNING, "no", ("keras",)),
    Entry("TE776", "keras-shared-schedule-splits-stacks", "keras", ERROR, "no", ("keras",)),
    # TensorFlow's TableConfig refusing the combiner (TE701) is said by TE775, at the same field.
    Entry(
        "TE775",
        "keras-unsupported-combiner",
        "keras",
        ERROR,
        "no",
        ("keras",),
        supersedes=("TE701",),
    ),
    # Embedding specs (the compiled config is checked by the rules above, too)
    Entry("TE701", "spec-invalid-table", "spec", ERROR, "no", ("spec",), supersedes=("TE403",)),
    Entry(
        "TE702", "spec-duplicate-table-name", "spec", ERROR, "no", ("spec",), supersedes=("TE402",)
    ),
    Entry(
        "TE703", "spec-undefined-table", "spec", ERROR, "no", ("spec",), follows=("tables", "name")
    ),
    Entry(
        "TE704", "spec-unused-table", "spec", WARNING, "no", ("spec",), follows=("table", "name")
    ),
    Entry(
        "TE705",
        "spec-missing-optimizer",
        "spec",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE405",),
        follows=("optimizer", "@algorithm"),
    ),
    Entry(
        "TE706",
        "spec-invalid-optimizer-argument",
        "spec",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE202", "TE203", "TE204", "TE205", "TE206"),
    ),
    Entry(
        "TE707",
        "spec-invalid-clipping",
        "spec",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE301", "TE302", "TE303"),
    ),
    Entry(
        "TE708", "spec-invalid-quantization", "spec", ERROR, "no", ("spec",), supersedes=("TE307",)
    ),
    Entry("TE709", "spec-vocabulary-below-num-hosts", "spec", WARNING, "no", ("spec",)),
    Entry(
        "TE711", "spec-undefined-schedule", "spec", ERROR, "no", ("spec",), follows=("schedules",)
    ),
    Entry(
        "TE712",
        "spec-unused-schedule",
        "spec",
        WARNING,
        "no",
        ("spec",),
        follows=("learning_rate", "optimizer"),
    ),
    Entry(
        "TE713",
        "spec-pinned-tag",
        "spec",
        ERROR,
        "no",
        ("spec",),
        follows=("learning_rate", "optimizer", "tag"),
    ),
    Entry("TE721", "spec-optimizer-override", "spec", INFO, "no", ("spec",)),
    Entry("TE722", "spec-dropped-weight-decay", "spec", WARNING, "no", ("spec",)),
    Entry(
        "TE723",
        "spec-invalid-feature",
        "spec",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE408", "TE410"),
        follows=("per_replica_batch_size", "input_shape", "output_shape"),
    ),
    Entry(
        "TE724",
        "spec-invalid-topology",
        "spec",
        ERROR,
        "no",
        ("spec",),
        supersedes=("TE502", "TE503", "TE505"),
    ),
    Entry("TE730", "spec-drift", "spec", ERROR, "no", ("drift",)),
    # Graphs: the ops that consume embedding configs, and gradient accumulators
    Entry("TE801", "embedding-op-malformed-config", "graph", ERROR, "no", ("graph",)),
    Entry("TE802", "learning-rate-count-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE803", "gradient-count-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE804", "embedding-config-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE805", "learning-rate-input-type", "graph", ERROR, "no", ("graph",)),
    Entry("TE806", "gradient-shape-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE811", "accumulator-dtype-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE812", "accumulator-num-required", "graph", ERROR, "no", ("graph",)),
    Entry("TE813", "accumulator-shape-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE814", "accumulator-reduction-type", "graph", ERROR, "no", ("graph",)),
    Entry("TE821", "cudnn-rnn-invalid-attribute", "graph", ERROR, "no", ("graph",)),
    Entry("TE822", "cudnn-backprop-mismatch", "graph", ERROR, "no", ("graph",)),
    Entry("TE823", "cudnn-skip-input-size", "graph", ERROR, "no", ("graph",)),
    Entry("TE824", "cudnn-num-proj", "graph", ERROR, "no", ("graph",)),
    Entry("TE825", "cudnn-state-shape", "graph", ERROR, "no", ("graph",)),
    Entry("TE826", "cudnn-params-size", "graph", ERROR, "no", ("graph",)),
    # Suppressions (reported by the engine)
    Entry("TE901", "invalid-suppression", "suppression", WARNING, "no", ()),
    Entry("TE902", "unused-suppression", "suppression", WARNING, "safe", ()),
    # Checkpoint compatibility: each kind of change `tpuemb diff` reports (compat finds them),
    # worst first.
    Entry("TE951", "restore-error", "diff", ERROR, "no", ()),
    Entry("TE952", "silent-reinit", "diff", ERROR, "no", ()),
    Entry("TE953", "orphaned-state", "diff", WARNING, "no", ()),
    Entry("TE954", "training-change", "diff", WARNING, "no", ()),
    Entry("TE955", "topology-change", "diff", INFO, "no", ()),
    Entry("TE956", "cosmetic", "diff", INFO, "no", ()),
    Entry("TE957", "unsaved-state", "diff", WARNING, "no", ()),
    Entry("TE958", "unverified-layout", "diff", WARNING, "no", ()),
)
# The front-ends' own rules, after tpuemb's: each front-end's rules module's rows (it imports
# Entry from here, which is defined by now).
CATALOG += frontends.rule_rows()
# Their families, after tpuemb's, each once (a front-end's rules live in its package: `home`).
FAMILIES += tuple(dict.fromkeys(e.family for e in CATALOG if e.family not in FAMILIES))
BY_CODE: dict[str, Entry] = {entry.code: entry for entry in CATALOG}
BY_NAME: dict[str, Entry] = {entry.name: entry for entry in CATALOG}

# The rules `tpuemb diff` reports, one per kind of change, worst first; `check` reports every
# other rule. Both report tpuemb's own failures and the problems with their suppressions.
CHANGES: tuple[Entry, ...] = tuple(entry for entry in CATALOG if entry.family == "diff")
SHARED = frozenset({"TE010", "TE901", "TE902"})


def command_codes(command: str) -> frozenset[str]:
    """The codes of the rules ``command`` (``check`` or ``diff``) can report."""
    if command == "diff":
        return frozenset(entry.code for entry in CHANGES) | SHARED
    return frozenset(entry.code for entry in CATALOG if entry.family != "diff")


@cache
def load(code: str) -> Rule:
    """The rule with ``code``, its module imported."""
    from tpuemb_cli.rules.base import Rule

    entry = BY_CODE[code]
    return Rule.from_module(entry, importlib.import_module(entry.module))


def all_rules() -> tuple[Rule, ...]:
    """Every rule, in catalog order (imports every rule module: for docs, SARIF, `tpuemb rules`)."""
    return tuple(load(entry.code) for entry in CATALOG)


def find(key: str) -> Entry | None:
    """A rule by code (``TE101``, any case) or name (``negative-dynamic-tag``)."""
    return BY_CODE.get(key.upper()) or BY_NAME.get(key.lower())
