"""What rules derive from one spec, each computed once per document and only when a rule first
asks: the config TensorFlow would build from it (``compiled``) and, for a SparseCore spec, its
layout (``plan``). The engine makes one ``SpecFacts`` per spec and hands it to every spec rule
and to the config rules that judge what it compiles to, so that a spec is compiled once however
many rules read it (no rule compiles, and nothing is remembered between documents)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.compiler import Compiled
    from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError
    from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory


class SpecFacts:
    """The derived facts of ``spec``, computed lazily and cached."""

    def __init__(self, spec: EmbeddingSpec) -> None:
        self.spec = spec

    @cached_property
    def compiled(self) -> Compiled:
        """The config (and where each of its fields comes from) TensorFlow builds from it."""
        from tpuemb_cli.spec.compiler import compile_spec

        return compile_spec(self.spec)

    @cached_property
    def sparsecore(self) -> bool:
        """A spec with a `sparse_core` section trains with TPUEmbeddingV2 on SparseCores."""
        return self.spec.HasField("sparse_core")

    @cached_property
    def layout(self) -> Plan | SparseCoreError | None:
        """The SparseCore layout of a SparseCore spec, or why it cannot be laid out; None when
        it is no SparseCore spec."""
        if not self.sparsecore:
            return None
        from tpuemb_cli.spec import sparsecore

        try:
            return sparsecore.plan(self.spec)
        except sparsecore.SparseCoreError as problem:
            return problem

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
