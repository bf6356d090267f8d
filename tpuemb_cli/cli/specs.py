"""Reading the spec a command names (``compile SPEC``, ``check --spec SPEC``): loaded, linted
(through the workspace, as ``check`` lints a file), and compiled."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tpuemb_cli.cli.common import Streams, error, linted_document, read_input

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.findings import Finding
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts
    from tpuemb_cli.workspace import Workspace


class LoadedSpec(NamedTuple):
    """A spec document, its findings, and what it compiles to (computed once, by its lint)."""

    document: Document
    findings: list[Finding]
    facts: SpecFacts | None  # None when it does not parse

    def expected(self) -> Expected | None:
        """What the config should be (``check --spec``), None when the spec does not parse."""
        from tpuemb_cli.spec.drift import Expected

        if self.facts is None:
            return None
        return Expected(self.document, self.facts.compiled)


def load_spec(
    path: str, max_bytes: int, streams: Streams, workspace: Workspace | None = None
) -> LoadedSpec | None:
    """A spec document and its findings, with the settings that govern it in ``workspace``
    (a new one, discovering its configuration, by default); None (after saying why) when it
    cannot be read, is no spec, or its configuration cannot be used."""
    from tpuemb_cli.model import schema
    from tpuemb_cli.workspace import Workspace

    read = read_input(path, max_bytes, streams)
    if read is None:
        return None
    item, data = read
    workspace = workspace or Workspace()
    linted = workspace.lint_document(data, item.name, message_type="EmbeddingSpec", exclude=False)
    document = linted_document(linted, streams)
    if document is None:
        return None
    if document.message is not None and schema.kind_of(document.message) != "spec":
        error(streams, f"{item.name}: not an embedding spec")
        return None
    return LoadedSpec(document, linted.findings, linted.facts)


def jax_target_refusal(spec: EmbeddingSpec) -> str | None:
    """Why ``compile --target jax`` does not take a spec: one without a ``jax`` section says
    nothing of the library's devices and SparseCores."""
    if spec.HasField("jax"):
        return None
    return (
        "--target jax takes a spec for jax-tpu-embedding (with a `jax` section, as "
        "tpuemb_cli.jax.spec_from_jax writes); this one has none"
    )
