"""How the engine lints jax-tpu-embedding's documents: an EmbeddingSpecProto's rules and, with a
TPU named, its memory on each device; an EmbeddingSpec with a ``jax`` section (FeatureSpecs),
stacked as the library stacks them; either, with statistics given (``--stats``), its stacks'
limits against them.

Each ``lint_<kind>`` is called by the engine (``Engine.run``) with the message, where findings
go, a compiled spec's expectations (none here) and a spec's facts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.rules.base import Fit

if TYPE_CHECKING:
    from tpuemb_cli.engine.runner import Emit, Engine
    from tpuemb_cli.model.chips import Chip
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts


def lint_jax(
    engine: Engine, spec: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    """A JAX SparseCore EmbeddingSpecProto: the JAX rules, with paths from its root."""
    for rule in engine.rules("jax"):
        assert rule.check_jax is not None
        for violation in engine.checked(rule, rule.check_jax, spec):
            emit(rule, (), violation)
    tpu = engine.accelerator()
    if tpu is not None:
        _lint_memory(engine, spec, emit, tpu.chip)
    if engine.settings.stats is not None and engine.rules("stats"):
        from tpuemb_cli.frontends.jax.rules.lib.measured import measured_proto

        per_device = tpu.chip.sparse_cores_per_device.value if tpu is not None else None
        engine.measured(measured_proto(spec, engine.settings, per_device), emit)


def lint_jax_spec(
    engine: Engine, spec: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
) -> None:
    """An EmbeddingSpec with a ``jax`` section: the rules of jax-tpu-embedding's FeatureSpecs."""
    # One set of facts per spec, its caller's: stacked once, for every rule.
    assert facts is not None and facts.spec is spec
    for rule in engine.rules("jax_spec"):
        assert rule.check_jax_spec is not None
        for violation in engine.checked(rule, rule.check_jax_spec, spec, facts):
            emit(rule, (), violation)
    if engine.settings.stats is not None and engine.rules("stats"):
        from tpuemb_cli.frontends.jax.rules.lib.measured import measured_spec

        measured = measured_spec(spec, facts, engine.settings)
        if measured is not None:
            engine.measured(measured, emit)


def _lint_memory(engine: Engine, spec: Any, emit: Emit, chip: Chip) -> None:
    """The memory rules on what jax-tpu-embedding allocates on each device: stacked variables
    and input buffers (nothing when the chip's HBM or SparseCores per device are not known,
    or the stacks' SparseCores are not whole devices of it: `explain --memory` says why)."""
    hbm, per_device = chip.hbm_per_core, chip.sparse_cores_per_device.value
    if not engine.rules("memory") or hbm is None or per_device is None:
        return
    from tpuemb_cli.frontends.jax.spec.memory import model
    from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

    memory = model(spec, per_device, engine.settings.stats)
    if memory.devices is None:
        return
    # No TensorFlow config, and no slice (fit.tpu): the rules read the JAX model only.
    engine.fit(TPUEmbeddingConfiguration(), Fit(chip, memory), emit)
