"""What rules derive from one spec, each computed once per document and only when a rule first
asks: the config TensorFlow would build from it (``compiled``), for a SparseCore spec its layout
(``plan``), and for a JAX spec its stacking (``jax_stacking``). One ``SpecFacts`` is made per
document (``facts_of``, the one constructor from a document; the workspace calls it when it loads
one) and passed to everything that reads it: the engine's spec and JAX rules, the config rules
that judge what it compiles to, ``diff``'s comparison and the front end's views. So a spec is
compiled or stacked once however many read it; no reader rebuilds the facts it was not given (no
rule compiles, and nothing is remembered between documents)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from tpuemb_cli.frontends.jax.spec.stacking import Stacking
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.pyhash import HashContext
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.compiler import Compiled
    from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError
    from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory


class SpecFacts:
    """The derived facts of ``spec``, computed lazily and cached."""

    def __init__(self, spec: EmbeddingSpec, jax_stacking: Stacking | None = None) -> None:
        """``jax_stacking``: the spec's stacking, when its maker worked it out already (a Keras
        layer's conversion sets the stacks' limits from it)."""
        self.spec = spec
        self._layouts: dict[HashContext, Plan | SparseCoreError] = {}
        self._jax_stacking = jax_stacking

    @property
    def jax_stacking(self) -> Stacking:
        """Which tables jax-tpu-embedding stacks together (a spec with a `jax` section): the
        JAX rules' every reader shares it (for 10,000 tables, auto-stacking is most of a
        check)."""
        if self._jax_stacking is None:
            from tpuemb_cli.frontends.jax.spec.stacking import stacking

            self._jax_stacking = stacking(self.spec)
        return self._jax_stacking

    @cached_property
    def compiled(self) -> Compiled:
        """The config (and where each of its fields comes from) TensorFlow builds from it."""
        from tpuemb_cli.spec.compiler import compile_spec

        return compile_spec(self.spec)

    @cached_property
    def sparsecore(self) -> bool:
        """A spec with a `sparse_core` section trains with TPUEmbeddingV2 on SparseCores."""
        return self.spec.HasField("sparse_core")

    @property
    def layout(self) -> Plan | SparseCoreError | None:
        """The SparseCore layout of a SparseCore spec (as a TensorFlow process run with CPython
        3.12+ and ``PYTHONHASHSEED=0`` orders it), or why it cannot be laid out; None when it is
        no SparseCore spec."""
        from tpuemb_cli.model.pyhash import HashContext

        return self.layout_for(HashContext())

    def layout_for(self, context: HashContext) -> Plan | SparseCoreError | None:
        """``layout`` as the TensorFlow process ``context`` describes orders its stacks:
        ``tpuemb compile --target sparsecore --python-hash-seed`` reuses the rules' layout when
        the seed is theirs, and lays the spec out once more only when it is not."""
        if not self.sparsecore:
            return None
        if context not in self._layouts:
            from tpuemb_cli.spec import sparsecore

            try:
                self._layouts[context] = sparsecore.plan(self.spec, context)
            except sparsecore.SparseCoreError as problem:
                self._layouts[context] = problem
        return self._layouts[context]

    @property
    def plan(self) -> Plan | None:
        """The SparseCore layout, or None when the spec is no SparseCore spec or cannot be laid
        out (``tpuemb compile --target sparsecore`` says why; other rules say where)."""
        from tpuemb_cli.spec.sparsecore import Plan

        layout = self.layout
        return layout if isinstance(layout, Plan) else None

    @cached_property
    def sparsecore_memory(self) -> SparseCoreMemory | None:
        """What TPUEmbeddingV2's variables take on each SparseCore and chip, from the layout;
        None when there is no layout."""
        laid_out = self.plan
        if laid_out is None:
            return None
        from tpuemb_cli.spec.sparsecore_memory import model

        return model(self.spec, laid_out)


def facts_of(document: Document) -> SpecFacts | None:
    """The facts of ``document`` when it is a spec (None for every other kind): the one place a
    document's facts are made, for a caller that was handed none."""
    from tpuemb_cli.model.schema import kind_of

    message = document.message
    # The kind, not an isinstance: a config's run does not import the spec's gencode.
    if message is None or kind_of(message) != "spec":
        return None
    return SpecFacts(cast("EmbeddingSpec", message))


def facts_for(document: Document, facts: SpecFacts | None) -> SpecFacts | None:
    """``facts`` when its caller had them, else the document's own (``facts_of``). Facts of
    another message are a caller's bug, refused rather than silently replaced."""
    if facts is None:
        return facts_of(document)
    if facts.spec is not document.message:
        raise ValueError(f"{document.name}: the facts passed are another spec's")
    return facts
