"""The schema row of a message type tpuemb reads (``model/schema`` holds tpuemb's rows; a
front-end's record adds its own)."""

from __future__ import annotations

from tpuemb_cli.model.records import Record

__all__ = ["MessageType"]


class MessageType(Record):
    """A message type tpuemb reads. Only ``name``, ``module``, ``kind`` and ``packages`` are
    required: a type with nothing else is read only when a user names it (``--type``, a
    header)."""

    name: str  # the short name users give (`--type`, `# proto-message:` headers)
    module: str  # the generated module that defines it, imported on first use
    # config, optimizer, spec, graph, saved_model, layouts, jax or keras: which front-end lints
    # it, and how (the `lint_<kind>` of the front-end that registers the kind: tpuemb_cli/frontends)
    kind: str
    # The proto packages of its full names (`--type`, headers): our mirror's, then TensorFlow's.
    packages: tuple[str, ...]
    # Recognising it (load/recognise, load/recognise_mapping; see ``signature``): the top-level
    # fields only it has, one of which a document of this type shows; and every field of this
    # oneof too (read from the descriptor when first asked, not at start-up).
    signature: frozenset[str] = frozenset()
    signature_oneof: str = ""
    # Its place among the types a file's top-level fields are judged against, first 1; 0: never.
    text_order: int = 0  # text format
    binary_order: int = 0  # the wire format (parsed as each in turn)
    mapping_order: int = 0  # JSON and YAML
    # Text judged to be one by its fields must also pass this check (a function of
    # load/signatures: (the text's start, the names inside its top-level blocks) -> bool), or it
    # is no document, for the reason ``text_unlike``.
    text_check: str = ""
    text_unlike: str = ""
    # Sniffing, when nothing says the type (load/sniff): text whose first field is one of these
    # is one, when the check ``lead_check`` names passes on it, or without one when the field
    # opens (`:`, `{`, `<`).
    text_leads: tuple[str, ...] = ()
    lead_check: str = ""
    # In binary, bytes that parse as it are one when this repeated field holds elements that each
    # set the fields after it (or, with none, when its ``signature_oneof`` is set); else they
    # have ``binary_missing``.
    binary_fields: tuple[str, ...] = ()
    binary_missing: str = ""
    # Sniffing bytes: a function of load/signatures, whether they are one when nothing says.
    binary_sniff: str = ""
    file_name: str = ""  # a file of this name is one, whatever its bytes
    # `tpuemb explain`: the function of views/explain that shows it, or else the text it is
    # refused with; and the text `--memory` refuses it with ("": it is shown).
    explain: str = ""
    explain_refusal: str = ""
    memory_refusal: str = ""
    # A type whose JSON is a format of its own, not protobuf's JSON mapping: the module (its full
    # name, a literal string) whose ``load_text(text, name, fmt)`` reads it (a Keras model's
    # config.json: its front-end's load/config).
    json_reader: str = ""
