"""What every rule module shares: the rule record, the site an optimizer is checked in, helpers.

A rule module (its code, name, severity and fix safety are its row in ``rules/__init__.py``) has a
docstring that is its user documentation (``tpuemb rule CODE``) and the check functions its row
names:

- ``check_config(config)``: yields Violations for a whole TPUEmbeddingConfiguration, with paths
  from its root;
- ``check_optimizer(params, site)``: yields Violations for one OptimizationParameters, with paths
  relative to it. The engine runs it once per distinct (params, site) -- most tables share their
  optimizer settings -- and places the violations under every table that has them, or at the
  root when the input is an OptimizationParameters of its own;
- neither, for the parse rules, whose findings the loader reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Severity, Violation
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

if TYPE_CHECKING:
    from tpuemb_cli.frontends.jax.spec.memory import JaxMemory
    from tpuemb_cli.model.accelerators import Accelerator
    from tpuemb_cli.model.chips import Chip
    from tpuemb_cli.model.memory import Memory
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.rules import Entry
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts
    from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory

__all__ = [
    "CHECKS",
    "STANDALONE",
    "TRAINING_MODES",
    "Config",
    "EmbeddingSpec",
    "Fit",
    "Measured",
    "MeasuredStack",
    "OptimizationParameters",
    "Rule",
    "Site",
    "TPUEmbeddingConfiguration",
    "table_label",
]


def __getattr__(name: str) -> Any:
    # The spec rules import EmbeddingSpec from here; its gencode is imported when they first do,
    # so that linting a config does not pay for it.
    if name == "EmbeddingSpec":
        from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

        return EmbeddingSpec
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Config = TPUEmbeddingConfiguration
TRAINING_MODES = frozenset(
    {TPUEmbeddingConfiguration.TRAINING, TPUEmbeddingConfiguration.BACKWARD_PASS_ONLY}
)

ConfigCheck = Callable[[TPUEmbeddingConfiguration], Iterator[Violation]]


# What a rule's module defines for each kind of document the catalog says it runs on.
CHECKS = {
    "config": "check_config",  # (TPUEmbeddingConfiguration) -> Violations from its root
    "optimizer": "check_optimizer",  # (OptimizationParameters, Site) -> Violations from it
    "spec": "check_spec",  # (EmbeddingSpec, SpecFacts: what it compiles to) -> Violations
    "graph": "check_graph",  # (GraphView) -> Violations
    "drift": "check_drift",  # (config, Expected) -> Violations where the config left its spec
    # (config, Fit: the chip and the memory model) -> Violations; only when the chip is known
    "memory": "check_memory",
    # (jax-tpu-embedding's EmbeddingSpecProto) -> Violations from its root
    "jax": "check_jax",
    # (EmbeddingSpec with a `jax` section: jax-tpu-embedding's FeatureSpecs, SpecFacts: its
    # stacking) -> Violations from its root; such a spec runs these instead of the spec, config
    # and SparseCore rules
    "jax_spec": "check_jax_spec",
    # (a Keras-RS model's KerasModel, the Topology its layers convert for) -> Violations from its
    # root; the spec each layer converts to then runs its backend's rules
    "keras": "check_keras",
    # (Measured: a document's stacks beside the statistics measured for them) -> Violations;
    # only when statistics are given (`--stats`, `stats = ...`)
    "stats": "check_stats",
}


class Site(Record):
    """Where an OptimizationParameters is checked.

    ``in_config``: it belongs to a table of a TPUEmbeddingConfiguration (a standalone
    OptimizationParameters is what TF's optimizer classes write, before the table adds its
    learning rate). ``trains``: the config's mode trains tables (TRAINING or BACKWARD_PASS_ONLY);
    a standalone OptimizationParameters is assumed to.
    """

    in_config: bool
    trains: bool


OptimizerCheck = Callable[[OptimizationParameters, Site], Iterator[Violation]]
SpecCheck = Callable[["EmbeddingSpec", "SpecFacts"], Iterator[Violation]]
GraphCheck = Callable[
    [Any], Iterator[Violation]
]  # a tpuemb_cli.frontends.tensorflow.rules.lib.graph.GraphView
DriftCheck = Callable[[TPUEmbeddingConfiguration, "Expected"], Iterator[Violation]]

STANDALONE = Site(in_config=False, trains=True)


class Budgeted(Protocol):
    """A front-end's memory model that says its own fill of a chip's HBM: what the memory rules
    judge (``rules.lib.fit.Budget``, built by the front-end's rules layer)."""

    def budget(self, chip: Chip) -> Any: ...


class Fit(Record):
    """What the memory rules check: the chip the config runs on (its HBM known) and the config's
    memory model, which the engine works out once for all of them -- for a spec with a
    ``sparse_core`` section, TPUEmbeddingV2's (``SparseCoreMemory``: per chip, not per core); for
    a JAX EmbeddingSpecProto, jax-tpu-embedding's (``JaxMemory``: per device, its SparseCores
    per device known); for a front-end's own, one that budgets itself (``Budgeted``)."""

    chip: Chip
    memory: Memory | SparseCoreMemory | JaxMemory | Budgeted
    # The TPU as named, with the slice's size when an accelerator type gave one; None on a spec,
    # whose topology TE724 holds against its accelerator.
    tpu: Accelerator | None = None


class MeasuredStack(Record):
    """One stack of a document, as the limits a front-end's library preprocesses its input with,
    beside what the statistics measured for it (``None``: the statistics hold no such value)."""

    name: str  # the stack's name, which keys its statistics
    path: FieldPath  # where a finding about the stack is placed
    # Where the stack's two limits are written, for a fix (None: the document cannot say them
    # for this stack alone).
    max_ids_path: FieldPath | None
    max_unique_ids_path: FieldPath | None
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    num_sparsecores: int  # the stack's SparseCores (partitions): the buffers scale with them
    measured_ids: int | None
    measured_unique_ids: int | None
    # A table's own limits where they differ from the stack's, which the library ignores in a
    # stack of several tables: (table, max_ids, max_unique_ids).
    ignored_table_limits: tuple[tuple[str, int, int], ...] = ()
    # The COO buffer a device gets where a `suggested_coo_buffer_size_per_device` sizes it
    # (None: the limits' theoretical maximum), where that is written, and the largest buffer
    # one SparseCore was measured to require.
    buffer_per_device: int | None = None
    buffer_path: FieldPath | None = None
    measured_buffer_per_sc: int | None = None


class Measured(Record):
    """What the statistics rules check: a document's stacks beside the statistics measured for
    them (``--stats``), which the front-end whose library preprocesses the input pairs up."""

    source: str  # the statistics as the user named them (a file or a folder)
    library: str  # the library whose preprocessing the limits are for ("jax-tpu-embedding")
    headroom: float  # `stats-headroom`: how far above the measured maxima a limit may sit
    stacks: tuple[MeasuredStack, ...]
    unmeasured: tuple[str, ...]  # the document's stacks the statistics hold nothing for
    unmatched: tuple[str, ...]  # stacks the statistics hold that the document has not
    per_device: int | None = None  # SparseCores a device, where a chip says
    # Stacks the statistics hold but cannot judge, and why (no ids counted, no max_ids array,
    # counts of another number of partitions): left out of `stacks`.
    unjudged: tuple[tuple[str, str], ...] = ()
    # Why the statistics judge nothing of the document at all ("": they do), where ``path``.
    unused: str = ""
    path: FieldPath = ()
    # What the library's preprocessing does with the ids past a limit, in its own words ("":
    # jax-tpu-embedding's, which drops them or aborts).
    overflow: str = ""


MemoryCheck = Callable[[TPUEmbeddingConfiguration, Fit], Iterator[Violation]]
StatsCheck = Callable[[Measured], Iterator[Violation]]
JaxCheck = Callable[[Any], Iterator[Violation]]  # a tpuemb_cli.pb.jax EmbeddingSpecProto
JaxSpecCheck = Callable[["EmbeddingSpec", "SpecFacts"], Iterator[Violation]]
KerasCheck = Callable[[Any, Any], Iterator[Violation]]  # (KerasModel, keras_spec.Topology)


class Rule(Record):
    """A rule ready to run: its catalog entry's metadata, its module's documentation and checks."""

    code: str
    name: str
    severity: Severity
    doc: str
    check_config: ConfigCheck | None
    check_optimizer: OptimizerCheck | None
    module: str
    fixable: str  # "safe", "unsafe" or "no"
    check_spec: SpecCheck | None = None
    check_graph: GraphCheck | None = None
    supersedes: tuple[str, ...] = ()
    check_drift: DriftCheck | None = None
    check_memory: MemoryCheck | None = None
    check_jax: JaxCheck | None = None
    check_jax_spec: JaxSpecCheck | None = None
    check_keras: KerasCheck | None = None
    check_stats: StatsCheck | None = None
    follows: tuple[str, ...] = ()  # see the catalog's Entry
    on_sparsecore: bool = True  # see the catalog's Entry
    # The checks of kinds a front-end adds (`check_<kind>`, its own document kinds): kind -> check.
    others: Mapping[str, Callable[..., Iterator[Violation]]] = {}

    def check(self, kind: str) -> Callable[..., Iterator[Violation]] | None:
        """The rule's check of documents of ``kind``: a front-end's kind's (``check_<kind>``,
        called with what its front-end passes), or one of CHECKS'."""
        found = self.others.get(kind)
        if found is not None:
            return found
        attribute = CHECKS.get(kind)
        return getattr(self, attribute) if attribute is not None else None

    @property
    def summary(self) -> str:
        """The docstring's first line."""
        return self.doc.strip().splitlines()[0].strip()

    @classmethod
    def from_module(cls, entry: Entry, module: ModuleType) -> Rule:
        """The rule ``entry`` describes, with the checks of ``module``, which must define exactly
        the check functions the entry says it runs (the engine imports by the entry alone)."""
        # The module's own names, looked up: getattr with a default would raise and catch an
        # AttributeError for each check it lacks (five of six), 200 of them at every start-up.
        namespace = vars(module)
        checks = {kind: namespace.get(function) for kind, function in CHECKS.items()}
        # A front-end's kinds: `check_<kind>`, for the kinds its entry says it runs on.
        others = {
            kind: namespace[f"check_{kind}"]
            for kind in entry.runs
            if kind not in CHECKS and f"check_{kind}" in namespace
        }
        defined = tuple(kind for kind, check in checks.items() if check is not None)
        defined += tuple(others)
        if sorted(defined) != sorted(entry.runs):
            raise TypeError(
                f"{module.__name__} defines checks for {defined}, its catalog entry says "
                f"{entry.runs}"
            )
        return cls(
            code=entry.code,
            name=entry.name,
            severity=entry.severity,
            doc=module.__doc__ or "",
            check_config=checks["config"],
            check_optimizer=checks["optimizer"],
            module=module.__name__,
            fixable=entry.fixable,
            check_spec=checks["spec"],
            check_graph=checks["graph"],
            supersedes=entry.supersedes,
            check_drift=checks["drift"],
            check_memory=checks["memory"],
            check_jax=checks["jax"],
            check_jax_spec=checks["jax_spec"],
            check_keras=checks["keras"],
            check_stats=checks["stats"],
            follows=entry.follows,
            on_sparsecore=entry.on_sparsecore,
            others=others,
        )


def table_label(config: TPUEmbeddingConfiguration, index: int) -> str:
    """``table 2 ("user_id")`` -- how a message names a table."""
    name = config.table_descriptor[index].name
    return f'table {index} ("{shown(name)}")' if name else f"table {index}"


def feature_label(config: TPUEmbeddingConfiguration, index: int) -> str:
    """``feature 1 ("query_terms")`` -- how a message names a feature."""
    name = config.feature_descriptor[index].name
    return f'feature {index} ("{shown(name)}")' if name else f"feature {index}"
