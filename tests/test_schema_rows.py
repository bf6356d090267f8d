"""The message-type rows (model/schema.TYPES): everything that tells the types apart is on them,
and recognising, sniffing, the engine and explain follow them -- a toy type added as one row (its
"gencode" built here) is recognised, sniffed, loaded, linted and refused or shown by explain."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tpuemb_cli import frontends
from tpuemb_cli.cli import main
from tpuemb_cli.load import signatures, sniff
from tpuemb_cli.load.recognise import Verdict, recognise
from tpuemb_cli.model import schema
from tpuemb_cli.views import explain as explain_views

from .helpers import DATA

NAMES = [row.name for row in schema.TYPES]


@pytest.mark.parametrize("name", NAMES)
def test_every_name_on_a_row_is_something(name: str) -> None:
    row = schema.BY_NAME[name]
    for check in (row.text_check, row.lead_check):
        if check:
            assert callable(signatures.text_check(check))
    if row.binary_sniff:
        assert callable(signatures.binary_sniff(row.binary_sniff))
    assert callable(frontends.lint_of(row.kind))  # a front-end lints the kind
    # Explained by a view (its row's, or its front-end's), or refused with a text; only an
    # explained type is refused --memory.
    explained = bool(row.explain) or frontends.explain_of(row.kind) is not None
    assert explained != bool(row.explain_refusal)
    if row.explain:
        assert callable(getattr(explain_views, row.explain))
    elif not explained:
        assert not row.memory_refusal
    descriptor: Any = schema.resolve(name).DESCRIPTOR
    assert row.signature <= set(descriptor.fields_by_name)
    for field in row.text_leads:
        assert field in descriptor.fields_by_name
    if row.binary_fields:
        first, *each = row.binary_fields
        element = descriptor.fields_by_name[first].message_type
        assert set(each) <= set(element.fields_by_name)
    if row.signature_oneof:
        assert row.signature_oneof in descriptor.oneofs_by_name


@pytest.mark.parametrize("encoding", ["text", "binary", "mapping"])
def test_the_orders_are_distinct(encoding: str) -> None:
    orders = [getattr(row, f"{encoding}_order") for row in schema.TYPES]
    used = [order for order in orders if order]
    assert len(set(used)) == len(used)


def test_the_orders_and_signatures_are_the_rows() -> None:
    def names(encoding: str) -> list[str]:
        return [row.name for row in schema.tried(encoding)]

    config, optimizer, spec = "TPUEmbeddingConfiguration", "OptimizationParameters", "EmbeddingSpec"
    graph, layouts, jax = "GraphDef", "SparseCoreTableLayouts", "EmbeddingSpecProto"
    torchrec = "TorchRecSpec"  # never sniffed in binary: tpuemb writes it as text, JSON or YAML
    assert names("text") == [config, optimizer, graph, layouts, jax, torchrec]
    assert names("binary") == [config, graph, optimizer, layouts, jax]
    assert names("mapping") == [config, optimizer, spec, jax, torchrec]
    assert recognise("x.pb", b"\xff\xff", "binary") == Verdict(
        False,
        reason=f"it parses as no {config}, {graph}, {optimizer}, {layouts} or {jax} without "
        "unknown fields",
    )
    # A signature computed from the descriptor: every algorithm of the `parameters` oneof.
    assert {"adagrad", "adam", "stochastic_gradient_descent"} <= schema.signature(optimizer)
    assert schema.signature(graph) == schema.BY_NAME[graph].signature == {"node"}


def test_importing_the_schema_imports_no_generated_module() -> None:
    import subprocess

    code = (
        "import sys, tpuemb_cli.model.schema as s; s.TYPES; s.BY_NAME; "
        "print(sorted(m for m in sys.modules if m.endswith('_pb2')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def _toy_module() -> types.ModuleType:
    """A module defining tpuemb.toy.ToyTables, as generated code would: tables of toys, at field
    numbers no other type reads (so its bytes parse as nothing else without unknown fields)."""
    proto = descriptor_pb2.FileDescriptorProto(name="toy.proto", package="tpuemb.toy")
    table = proto.message_type.add(name="ToyTable")
    table.field.add(name="name", number=1, type=9, label=1)  # string
    table.field.add(name="rows", number=2, type=3, label=1)  # int64
    tables = proto.message_type.add(name="ToyTables")
    tables.field.add(
        name="toy_table", number=99, type=11, label=3, type_name=".tpuemb.toy.ToyTable"
    )
    tables.field.add(name="note", number=98, type=9, label=1)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    module = types.ModuleType("tpuemb_toy_pb2")
    module.ToyTables = message_factory.GetMessageClass(  # type: ignore[attr-defined]
        pool.FindMessageTypeByName("tpuemb.toy.ToyTables")
    )
    return module


TOY = schema.MessageType(
    "ToyTables",
    "tpuemb_toy_pb2",
    "layouts",
    ("tpuemb.toy",),
    signature=frozenset({"toy_table"}),
    text_order=6,
    binary_order=6,
    mapping_order=5,
    text_leads=("toy_table",),
    binary_fields=("toy_table", "name"),
    binary_missing="no `toy_table` with a name",
    binary_sniff="toy_bytes",
    explain_refusal="a ToyTables: explain shows no toys",
)


def _add_row(monkeypatch: pytest.MonkeyPatch, row: schema.MessageType) -> None:
    rows = tuple(r for r in schema.TYPES if r.name != row.name) + (row,)
    monkeypatch.setattr(schema, "TYPES", rows)
    monkeypatch.setattr(schema, "BY_NAME", {r.name: r for r in rows})


def test_a_type_added_as_one_row_is_read_everywhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module = _toy_module()
    monkeypatch.setitem(sys.modules, "tpuemb_toy_pb2", module)
    _add_row(monkeypatch, TOY)
    # The one check that data cannot say: bytes are toys when they read as nothing but toys.
    monkeypatch.setattr(
        signatures, "toy_bytes", lambda data: signatures.is_binary("ToyTables", data), raising=False
    )
    toys = module.ToyTables()
    toys.toy_table.add(name="lego", rows=3)
    data = toys.SerializeToString()
    text = b'toy_table { name: "lego" rows: 3 }\n'

    # Recognised by its signature field, in every encoding its row says it is tried for.
    toy = Verdict(True, message_type="ToyTables")
    assert recognise("t.pbtxt", text, "text") == toy
    assert recognise("t.pb", data, "binary") == toy
    assert recognise("t.json", b'{"toyTable": [{"name": "lego"}]}', "json") == toy
    assert recognise("t.yaml", b"toy_table:\n  - name: lego\n", "yaml") == toy
    # Bytes that parse as toys but hold none: what its row says they lack.
    nameless = module.ToyTables()
    nameless.toy_table.add(rows=3)
    assert recognise("t.pb", nameless.SerializeToString(), "binary") == Verdict(
        False, reason="it parses as ToyTables but has no `toy_table` with a name"
    )
    assert recognise("x.pb", b"\xff\xff", "binary").reason.endswith(
        "SparseCoreTableLayouts, EmbeddingSpecProto or ToyTables without unknown fields"
    )
    # Sniffed when nothing says the type: by its lead field, and by its row's binary check.
    assert sniff.text_type(text.decode()) == "ToyTables"
    assert sniff.binary_type("t.pb", data) == "ToyTables"
    assert schema.lookup("tpuemb.toy.ToyTables") is TOY

    # Loaded and linted as its kind says (layouts: no rule runs), and refused by explain.
    (tmp_path / "t.pbtxt").write_bytes(text)
    (tmp_path / "t.pb").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for name in ("t.pbtxt", "t.pb"):
        result = runner.invoke(main, ["check", "--format", "concise", name])
        assert (result.exit_code, result.stdout, result.stderr) == (
            0,
            "All checks passed (1 file checked).\n",
            "",
        )
        result = runner.invoke(main, ["explain", name])
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            f"tpuemb: error: {name}: a ToyTables: explain shows no toys\n",
        )

    # Given a view instead, explain shows it.
    def explain_toys(document: Any, facts: Any) -> tuple[str, list[str]]:
        return f"{document.name} (toys)", [t.name for t in document.message.toy_table]

    monkeypatch.setattr(explain_views, "explain_toys", explain_toys, raising=False)
    _add_row(monkeypatch, TOY._replace(explain="explain_toys", explain_refusal=""))
    result = runner.invoke(main, ["explain", "t.pb"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "t.pb (toys)\n\nlego\n", "")


def test_explain_refuses_each_type_with_its_rows_text(tmp_path: Path) -> None:
    layouts = tmp_path / "layouts.pbtxt"
    layouts.write_text('tables { table_name: "a" stacked_table_name: "a" }\n')
    saved = tmp_path / "saved_model.pb"
    saved.write_bytes(
        schema.resolve("SavedModel")(saved_model_schema_version=1).SerializeToString()
    )
    graph = DATA / "tf-2.21" / "graphs" / "tpu_embedding_send_recv.pbtxt"
    shown = "explain shows a config, a spec, an optimizer, JAX stacks or a Keras-RS model"
    for path, said in (
        (layouts, f"SparseCore layouts: {shown}; `tpuemb convert` shows the layouts as text"),
        (saved, f"a SavedModel: {shown}; `tpuemb check` lints a graph's TPU embedding ops"),
        (graph, f"a GraphDef: {shown}; `tpuemb check` lints a graph's TPU embedding ops"),
    ):
        result = CliRunner().invoke(main, ["explain", str(path)])
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr.startswith(f"tpuemb: error: {path}: {said}")
