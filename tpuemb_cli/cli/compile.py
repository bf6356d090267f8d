"""``tpuemb compile``: an embedding spec to the TPUEmbeddingConfiguration TensorFlow would build,
(``--target sparsecore``) to the SparseCoreTableLayouts TPUEmbeddingV2 would compute, or
(``--target jax``) a spec with a `jax` section to the EmbeddingSpecProto jax-tpu-embedding
would write."""

from __future__ import annotations

from typing import NamedTuple

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli import choices, inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    Streams,
    error,
    max_size_option,
    run,
    write_output,
)
from tpuemb_cli.cli.main import Command
from tpuemb_cli.frontends.jax.spec.versions import DEFAULT as JAX_DEFAULT
from tpuemb_cli.frontends.jax.spec.versions import VERSIONS as JAX_VERSIONS
from tpuemb_cli.model.findings import Severity


class CompileOptions(NamedTuple):
    path: str
    to: str = "text"  # an encoding's name
    output: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    target: str = "config"  # config, sparsecore or jax
    order: str = "checkpoint"  # sparsecore: the checkpoint's order of layouts, or the stacker's
    hash_seed: int = 0  # sparsecore: the PYTHONHASHSEED of the TensorFlow process to match
    none_hash: int | None = None  # sparsecore: its hash(None); None: CPython 3.12+'s constant
    jax_version: str = JAX_DEFAULT  # jax: the jax-tpu-embedding release whose proto to write


def execute(options: CompileOptions, streams: Streams) -> int:
    from tpuemb_cli.cli.specs import jax_target_refusal, load_spec
    from tpuemb_cli.frontends.tensorflow.spec import jax_refusal
    from tpuemb_cli.load import encodings

    loaded = load_spec(options.path, options.max_bytes, streams)
    if loaded is None:
        return EXIT_ERROR
    document, found, facts = loaded
    if facts is not None:
        refusal = jax_target_refusal(facts.spec) if options.target == "jax" else None
        refusal = refusal or (jax_refusal(facts.spec) if options.target != "jax" else None)
        if refusal is not None:
            error(streams, f"{document.name}: not compiled: {refusal}")
            return EXIT_ERROR
    if found:
        streams.err.write(formatters.get("concise")(formatters.Report(found, 1), False))
    if any(f.name == "internal-error" for f in found):
        error(streams, f"{document.name}: not compiled: tpuemb failed on it (a bug)")
        return EXIT_ERROR
    if facts is None or any(f.severity is Severity.ERROR for f in found):
        error(streams, f"{document.name}: not compiled: the spec has errors")
        return EXIT_FINDINGS
    if options.target == "sparsecore":
        from tpuemb_cli.cli.compile_sparsecore import layouts

        found_layouts = layouts(
            document, facts, options.order, options.hash_seed, options.none_hash, streams
        )
        if found_layouts is None:
            return EXIT_ERROR
        output = encodings.get(options.to).render(found_layouts)
    elif options.target == "jax":
        from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec, version_refusal
        from tpuemb_cli.frontends.jax.spec.layout import layout
        from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError

        refused_version = version_refusal(facts.spec, options.jax_version)
        if refused_version is not None:
            error(streams, f"{document.name}: not compiled: {refused_version}")
            return EXIT_ERROR
        try:
            # Laid out from the stacking the rules worked out.
            proto = compile_jax_spec(
                facts.spec, layout(facts.spec, facts.jax_stacking), version=options.jax_version
            )
        except JaxStackingError as refused:  # reported by TE696, unless the rule is off
            path = ".".join(str(part) for part in refused.path)
            error(streams, f"{document.name}: not compiled: {path}: {refused.message}")
            return EXIT_FINDINGS
        output = encodings.get(options.to).render(proto)
    else:
        output = encodings.get(options.to).render(facts.compiled.config)
    return write_output(output, options.output, streams, not encodings.get(options.to).text)


@click.command("compile", cls=Command)
@click.argument("spec")
@click.option("-o", "--output", metavar="OUT", help="Write here (atomically) instead of stdout.")
@click.option(
    "--to", "to", type=choices.encodings(), default="text", show_default=True, help="Output format."
)
@click.option(
    "--target",
    type=click.Choice(["config", "sparsecore", "jax"]),
    default="config",
    show_default=True,
    help="config: the TPUEmbeddingConfiguration (TPUEmbedding); sparsecore: the "
    "SparseCoreTableLayouts TPUEmbeddingV2 computes and saves in checkpoints; jax: the "
    "EmbeddingSpecProto jax-tpu-embedding writes for a spec with a `jax` section.",
)
@click.option(
    "--order",
    type=click.Choice(["checkpoint", "stacker"]),
    default="checkpoint",
    show_default=True,
    help="sparsecore: the layouts as TensorFlow saves them in checkpoints (by table name), or "
    "as its stacker returns them (stack by stack, in an order that hangs on Python's hashing).",
)
@click.option(
    "--python-hash-seed",
    "hash_seed",
    type=click.IntRange(0, 4294967295),
    default=0,
    show_default=True,
    help="sparsecore: the PYTHONHASHSEED of the TensorFlow process to match (it orders stacks "
    "of one width).",
)
@click.option(
    "--python-none-hash",
    "none_hash",
    type=int,
    default=None,
    help="sparsecore: hash(None) in that process. Default: CPython 3.12+'s constant; on "
    "CPython 3.11 it is an address that changes in every process.",
)
@click.option(
    "--jax-version",
    type=click.Choice(JAX_VERSIONS),
    default=JAX_DEFAULT,
    show_default=True,
    help="jax: the jax-tpu-embedding release whose EmbeddingSpecProto to write (0.2.0 adds each "
    "stack's activation limit and each table's combiner and optimizer).",
)
@max_size_option
def command(
    spec: str,
    output: str | None,
    to: str,
    target: str,
    order: str,
    hash_seed: int,
    none_hash: int | None,
    jax_version: str,
    max_bytes: int,
) -> None:
    """Compile an embedding spec to the TPUEmbeddingConfiguration TensorFlow would build,
    (--target sparsecore) to the SparseCoreTableLayouts TPUEmbeddingV2 would compute, or
    (--target jax) a spec with a `jax` section to the EmbeddingSpecProto jax-tpu-embedding
    writes (create_proto_from_feature_specs, after its stacking): 0.1.0's, or with
    --jax-version 0.2.0 that release's (see docs/jax.md).

    The spec is linted first; a spec with errors is not compiled (exit 1).

    \b
    SparseCore layouts are TensorFlow's byte for byte. By default they come in the order
    TensorFlow saves them in checkpoints (by table name), which no process detail changes.
    --order stacker gives the stacker's own order, which sorts the stacks of one padded width by
    a digest of hash(optimizer): it hangs on the TensorFlow process's PYTHONHASHSEED (strings)
    and hash(None) (a constant from CPython 3.12; an address that changes in every process on
    3.11). The defaults match CPython 3.12+ with PYTHONHASHSEED=0. A learning-rate schedule is a
    function hashed by its address: its stacks' place cannot be known (a note on stderr).
    See docs/sparsecore.md.
    """
    run(
        execute,
        CompileOptions(
            spec, to, output, max_bytes, target, order, hash_seed, none_hash, jax_version
        ),
        Streams.standard(),
    )
