"""How the engine lints TensorFlow's documents: a config's optimizer, config, memory and drift
rules; an optimizer's; a spec's, and the config it compiles to; the configs inside a graph.

Each ``lint_<kind>`` is called by the engine (``Engine.run``) with the message, where findings
go, a compiled spec's expectations (for a config) and a spec's facts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath, render
from tpuemb_cli.rules.base import STANDALONE, TRAINING_MODES, Fit, Rule, Site

if TYPE_CHECKING:
    from google.protobuf.message import Message

    from tpuemb_cli.engine.runner import Emit, Engine
    from tpuemb_cli.model.accelerators import Accelerator
    from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
    from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts

_TABLE, _OPTIMIZER = ("table_descriptor",), ("optimization_parameters",)


def lint_config(
    engine: Engine, config: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    _lint_config(engine, config, emit, engine.accelerator())
    if expected is not None:
        for rule in engine.rules("drift"):
            assert rule.check_drift is not None
            for violation in engine.checked(rule, rule.check_drift, config, expected):
                emit(rule, (), violation)


def lint_optimizer(
    engine: Engine, params: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    for rule in engine.rules("optimizer", _algorithm(params), params):
        assert rule.check_optimizer is not None
        for violation in engine.checked(rule, rule.check_optimizer, params, STANDALONE):
            emit(rule, (), violation)


def _algorithm(params: OptimizationParameters) -> str:
    """The variant of an OptimizationParameters the optimizer rules of one algorithm check (the
    catalog's ``variant``): its algorithm, "" for none."""
    return params.WhichOneof("parameters") or ""


def lint_spec(
    engine: Engine, spec: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    assert facts is not None  # a spec's, made by ``lint`` when its caller had none
    if spec.HasField("jax"):
        # jax-tpu-embedding's objects: JAX's rules; TensorFlow's (the spec's, and the config's
        # it would compile to) judge what TensorFlow does, which JAX does not.
        engine.run("jax_spec", spec, emit, expected, facts)
        return
    # One set of facts per spec, its caller's: compiled (and laid out) once, for every rule.
    assert facts.spec is spec
    for rule in engine.rules("spec"):
        assert rule.check_spec is not None
        for violation in engine.checked(rule, rule.check_spec, spec, facts):
            emit(rule, (), violation)
    # The compiled config goes through the config rules too; each finding is placed at the
    # spec field it comes from, unless a spec rule reports the same mistake better, or the
    # rule does not judge what a SparseCore spec compiles to (the catalog's on_sparsecore).
    compiled = facts.compiled
    superseded = engine.superseded_by("spec")
    sparsecore = facts.sparsecore

    def placed(rule: Rule, prefix: FieldPath, violation: Violation) -> None:
        if rule.code in superseded or (sparsecore and not rule.on_sparsecore):
            return
        path = compiled.spec_path(prefix + violation.path)
        message = f"in the compiled config ({render(prefix + violation.path)}): "
        emit(rule, (), Violation(path, message + violation.message, violation.fix))

    tpu = engine.accelerator(spec.topology.accelerator)
    if sparsecore:  # TPUEmbeddingV2 allocates stacked tables, not the compiled config's
        if tpu is not None:
            _lint_sparsecore_memory(engine, facts, emit, tpu)
        tpu = None
    elif tpu is not None:  # the slice's size is held against the spec's topology by TE724
        tpu = tpu._replace(size=None)
    _lint_config(engine, compiled.config, placed, tpu)


def lint_graph(
    engine: Engine, graph: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    _lint_graph(engine, graph, (), emit)


def lint_saved_model(
    engine: Engine,
    saved_model: Any,
    emit: Emit,
    expected: Expected | None,
    facts: SpecFacts | None,
) -> None:
    for index, meta_graph in enumerate(saved_model.meta_graphs):
        _lint_graph(engine, meta_graph.graph_def, ("meta_graphs", index, "graph_def"), emit)


def lint_layouts(
    engine: Engine, layouts: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    """SparseCore layouts: no rule runs on them (their load problems are their findings)."""


def _lint_graph(engine: Engine, graph: Message, prefix: FieldPath, emit: Emit) -> None:
    from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import CONFIG_OPS, config_of
    from tpuemb_cli.frontends.tensorflow.rules.lib.graph import GraphView

    view = GraphView(graph, prefix)
    for rule in engine.rules("graph"):
        assert rule.check_graph is not None
        for violation in engine.checked(rule, rule.check_graph, view):
            emit(rule, (), violation)
    # Each embedding op's config passes the config rules, its findings nested under the node.
    for node in view.nodes(*sorted(CONFIG_OPS)):
        config = config_of(node)
        if config is None:
            continue
        at = node.path + ("attr", "config")

        def nested(
            rule: Rule,
            inner: FieldPath,
            violation: Violation,
            at: FieldPath = at,
            label: str = node.label,
        ) -> None:
            where = render(inner + violation.path) or "(root)"
            message = f"{label}, config field `{where}`: {violation.message}"
            emit(rule, (), Violation(at, message, violation.fix))

        _lint_config(engine, config, nested, engine.accelerator())


def _lint_sparsecore_memory(engine: Engine, facts: SpecFacts, emit: Emit, tpu: Accelerator) -> None:
    """The memory rules on what TPUEmbeddingV2 allocates: the stacked tables and slot
    variables on each chip (nothing when the spec cannot be laid out: other rules say why)."""
    chip = tpu.chip
    if not engine.rules("memory") or chip.hbm_bytes.value is None:
        return
    memory = facts.sparsecore_memory
    if memory is None:
        return
    engine.fit(facts.compiled.config, Fit(chip, memory), emit)


def _lint_memory(
    engine: Engine, config: TPUEmbeddingConfiguration, emit: Emit, tpu: Accelerator
) -> None:
    chip = tpu.chip
    if not engine.rules("memory") or chip.hbm_per_core is None or config.num_tensor_cores < 1:
        return  # no rule to run, no HBM to compare with, or no cores (TE502 says so)
    from tpuemb_cli.model.memory import model

    engine.fit(config, Fit(chip, model(config), tpu), emit)


def _lint_config(
    engine: Engine, config: TPUEmbeddingConfiguration, emit: Emit, tpu: Accelerator | None = None
) -> None:
    # Most tables share their optimizer settings, so optimizer rules run once per distinct
    # OptimizationParameters and their violations are placed under every table that has it.
    site = Site(in_config=True, trains=config.mode in TRAINING_MODES)
    groups: dict[bytes, list[int]] = {}
    tables = config.table_descriptor
    for index, table in enumerate(tables):
        if table.HasField("optimization_parameters"):
            key = table.optimization_parameters.SerializeToString(deterministic=True)
            groups.setdefault(key, []).append(index)
    # The try is written out in these two loops, not through ``checked``: they run every rule on
    # every file, and a call and a list per rule showed in the many-files benchmark. (A rule that
    # fails half-way keeps the violations it yielded before failing.)
    for indexes in groups.values():
        params = tables[indexes[0]].optimization_parameters
        for rule in engine.rules("optimizer", _algorithm(params), params):
            try:
                for violation in rule.check_optimizer(params, site):  # type: ignore[misc]
                    for index in indexes:
                        emit(rule, (*_TABLE, index, *_OPTIMIZER), violation)
            except Exception as error:  # a bug in the rule: reported on the file
                engine.crashed_in(rule, error)
    for rule in engine.rules("config", message=config):
        try:
            for violation in rule.check_config(config):  # type: ignore[misc]
                emit(rule, (), violation)
        except Exception as error:  # a bug in the rule: reported on the file
            engine.crashed_in(rule, error)
    if tpu is not None:
        _lint_memory(engine, config, emit, tpu)
