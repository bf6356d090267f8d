"""How the engine lints a Keras-RS model: the Keras rules, then each DistributedEmbedding layer's
spec -- what its backend's conversion hands the SparseCore library -- through that library's
rules (the engine runs that kind: the front-end that owns it judges it).

``lint_keras`` is called by the engine (``Engine.run``) with the model, where findings go, a
compiled spec's expectations (none here) and a spec's facts (none: each layer has its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath, render

if TYPE_CHECKING:
    from tpuemb_cli.engine.runner import Emit, Engine
    from tpuemb_cli.frontends.keras.spec.conversion import Topology
    from tpuemb_cli.rules.base import Rule
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts

BACKEND = "keras-backend"  # this front-end's option (its record)


def lint_keras(
    engine: Engine, model: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    """A Keras-RS model: the Keras rules, then each DistributedEmbedding layer's spec (what
    its backend's conversion hands the SparseCore library) through that backend's rules,
    each finding placed at the layer's field it comes from, unless a Keras rule reports the
    same mistake as Keras-RS shows it. With TensorFlow on a chip whose TPU embedding
    feature is not known (v5e, TPU7x), the specs are not linted: which library's rules
    apply is what is not known."""
    from tpuemb_cli.frontends.keras.spec.conversion import convert, layer_path
    from tpuemb_cli.spec.facts import SpecFacts

    topology = topology_for(engine, model)
    for rule in engine.rules("keras"):
        assert rule.check_keras is not None
        for violation in engine.checked(rule, rule.check_keras, model, topology):
            emit(rule, (), violation)
    superseded = engine.superseded_by("keras")
    if topology.backend == "tensorflow" and not topology.embedding_feature():
        # Whether TPUEmbedding or TPUEmbeddingV2 judges the tables depends on the chip's
        # embedding feature, which no cited source gives for this chip: no verdict on it.
        return
    library = topology.library()
    unplaced = topology.global_device_count < 1
    if unplaced and engine.settings.stats is not None and engine.rules("stats"):
        _stats_unused(engine, model, emit, topology.backend)
    for index, layer in enumerate(model.layers):
        converted = convert(layer, topology)
        if not converted.spec.features:
            continue  # nothing on the SparseCores

        def placed(
            rule: Rule,
            prefix: FieldPath,
            violation: Violation,
            converted: Any = converted,
            index: int = index,
        ) -> None:
            if rule.code in superseded:
                return
            path = prefix + violation.path
            if unplaced and path[:1] == ("jax",):
                return  # the devices no --tpu gave: tpuemb's zeros, not the model's mistake
            message = f"in what Keras-RS hands {library} ({render(path)}): {violation.message}"
            at = layer_path(converted, index, path)
            emit(rule, (), Violation(at, message, violation.fix))

        if topology.backend == "jax":
            # The stacking the conversion worked out, the rules' too.
            layer_facts = SpecFacts(converted.spec, converted.stacking)
            engine.run("jax_spec", converted.spec, placed, None, layer_facts)
        else:
            # The layer's spec is a document of its own: its facts, made once here.
            engine.run("spec", converted.spec, placed, None, SpecFacts(converted.spec))


def _stats_unused(engine: Engine, model: Any, emit: Emit, backend: str) -> None:
    """Statistics given for a model whose stacks are not known: said once, at its first layer
    (TE613), not passed over in silence."""
    from tpuemb_cli.rules.base import Measured

    settings = engine.settings
    why = (
        "the layers' stacks (which the statistics are keyed by) are made for the TPU's devices "
        "and SparseCores, and no TPU is named"
        if backend == "jax"
        else "the TensorFlow backend's statistics are not read"
    )
    source = settings.stats_path or "the statistics"
    at: FieldPath = ("layers", 0) if model.layers else ()
    engine.measured(
        Measured(source, "", settings.stats_headroom, (), (), (), unused=why, path=at), emit
    )


def topology_for(engine: Engine, model: Any) -> Topology:
    """What a Keras-RS model's layers convert for: the model's ``target`` when its caller
    gave one (live objects), else the settings' backend (``--keras-backend``,
    ``keras-backend``) and TPU (``--tpu``, ``tpu``): its devices and SparseCores per device
    when known."""
    from tpuemb_cli.frontends.keras.spec.conversion import Topology

    backend = engine.settings.option(BACKEND)
    if model.HasField("target"):
        target = model.target
        return Topology(
            target.backend or backend,
            target.global_device_count,
            target.num_sc_per_device,
            target.accelerator,
        )
    tpu = engine.accelerator()
    if tpu is None:
        return Topology(backend)
    return Topology(
        backend,
        tpu.devices or 0,
        tpu.chip.sparse_cores_per_device.value or 0,
        tpu.chip.name,
    )


def settle_keras(engine: Engine, model: Any) -> None:
    """Writes the topology ``engine``'s settings convert a Keras-RS model's layers for into its
    ``target`` (a live model's own, completed), which its views and plans then read."""
    topology = topology_for(engine, model)
    model.target.backend = topology.backend
    model.target.global_device_count = topology.global_device_count
    model.target.num_sc_per_device = topology.num_sc_per_device
    model.target.accelerator = topology.accelerator
