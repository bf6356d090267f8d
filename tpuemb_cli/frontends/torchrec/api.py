"""From live TorchRec objects to a TorchRecSpec: lint a training script's real tables on CPU,
without torch in tpuemb (``tpuemb_cli.torchrec``).

    from tpuemb_cli.torchrec import spec_from_torchrec, lint_torchrec
    spec = spec_from_torchrec(tables, collection="bag", optimizer=torch.optim.Adagrad,
                              optimizer_kwargs={"lr": 0.01}, batch_size=64,
                              global_device_count=8, num_sc_per_device=4, auto_stack=True)
    findings = lint_torchrec(collection_module)

``tables_or_collection`` is a list of ``SparseCoreEmbeddingConfig`` (what you would pass to a
fused collection), or a built ``SparseCoreFusedEmbeddingBagCollection`` /
``SparseCoreFusedEmbeddingCollection``, whose tables, optimizer, batch and topology are read
from it (its ``_tables``, ``_optimizer_type``, ``_optimizer_kwargs``, ``_batch_size``,
``_global_device_count``, ``_num_sc_per_device``) and whose stacks, already made, are recorded
as it made them (``stacks``). Only attributes are read: a SparseCoreEmbeddingConfig's
``config`` (an ``EmbeddingBagConfig`` or ``EmbeddingConfig``: its class name says which; its
``name``, ``num_embeddings``, ``embedding_dim``, ``feature_names``, ``pooling``,
``data_type``), ``max_seq_len``, its limits, ``stack_table_name`` and the stack the library
put it in (``_stacked_config``). torch is never imported here, and tpuemb never needs it.

``stack_calls`` are the ``table_stacking`` calls the script makes on the tables before the
collection, in order: dicts of their keyword arguments plus ``call`` ("stack_tables" or
``"auto_stack_tables"``), e.g. ``{"call": "stack_tables", "table_names": ["user", "item"],
"global_device_count": 8, "num_sc_per_device": 4}``; ``collection`` ("bag" or "sequence", or
the class name) with the constructor's arguments, or None for tables only prepared
(``prepare_tables_for_stacking`` with ``global_device_count`` and ``num_sc_per_device``).

What the library would refuse becomes findings, never exceptions here: two tables of one name
are two spec tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Number
from typing import Any

from tpuemb_cli.model.findings import Finding

__all__ = ["lint_torchrec", "spec_from_torchrec"]

_COLLECTIONS = {
    "bag": "SparseCoreFusedEmbeddingBagCollection",
    "sequence": "SparseCoreFusedEmbeddingCollection",
}
_CALL_FIELDS = (
    "global_device_count",
    "num_sc_per_device",
    "batch_size",
    "activation_mem_bytes_limit",
)


def _is_collection(value: Any) -> bool:
    return hasattr(value, "_tables") and hasattr(value, "_optimizer_type")


def _enum_name(value: Any, default: str = "") -> str:
    if value is None:
        return default
    return str(getattr(value, "name", value))


def _table(source: Any, target: Any) -> None:
    config = getattr(source, "config", source)
    target.name = str(getattr(config, "name", "") or "")
    target.kind = "sequence" if type(config).__name__ == "EmbeddingConfig" else "bag"
    target.num_embeddings = int(getattr(config, "num_embeddings", 0) or 0)
    target.embedding_dim = int(getattr(config, "embedding_dim", 0) or 0)
    target.feature_names.extend(str(name) for name in getattr(config, "feature_names", []) or [])
    if target.kind == "bag":
        target.pooling = _enum_name(getattr(config, "pooling", None), "SUM")
    data_type = getattr(config, "data_type", None)
    if data_type is not None:
        target.data_type = _enum_name(data_type)
    for field in (
        "max_seq_len",
        "max_ids_per_partition",
        "max_unique_ids_per_partition",
        "suggested_coo_buffer_size_per_device",
    ):
        number = getattr(source, field, None)
        if isinstance(number, int) and not isinstance(number, bool):
            setattr(target, field, number)
    target.stack_table_name = str(getattr(source, "stack_table_name", "") or "")


def _optimizer(optimizer: Any, kwargs: Mapping[str, Any] | None, target: Any) -> None:
    if optimizer is not None:
        target.type = optimizer if isinstance(optimizer, str) else type_name(optimizer)
    for key, given in sorted((kwargs or {}).items()):
        if key == "betas" and isinstance(given, (list, tuple)) and len(given) == 2:
            target.kwargs["beta1"], target.kwargs["beta2"] = (float(v) for v in given)
            continue
        if isinstance(given, (bool, Number)):
            target.kwargs[str(key)] = float(given)  # type: ignore[arg-type]
        else:
            target.other_kwargs.append(str(key))


def type_name(value: Any) -> str:
    """A class's name (``torch.optim.Adagrad`` -> "Adagrad"), or the type of an instance's."""
    return value.__name__ if isinstance(value, type) else type(value).__name__


def _stack_call(call: Mapping[str, Any], target: Any) -> None:
    target.call = str(call.get("call", "stack_tables"))
    names = call.get("table_names", call.get("tables"))
    if isinstance(names, str):
        target.tables_string = True
        target.tables.append(names)
    elif names is not None:
        target.tables.extend(str(name) for name in names)
    name = call.get("stack_table_name", call.get("name"))
    if name:
        target.name = str(name)
    if call.get("rotation") is not None:
        target.rotation = int(call["rotation"])
    target.fail_on_excess_padding = bool(call.get("fail_on_excess_padding", False))
    for field in _CALL_FIELDS:
        if call.get(field) is not None:
            setattr(target, field, int(call[field]))
    if call.get("use_short_names") is not None:
        target.use_short_names = bool(call["use_short_names"])


def _stacks(source: Any, target: Any) -> None:
    """The stacks a built collection holds, as ``to_dict()`` writes them."""
    seen: set[int] = set()
    # The collection's list, then any stack a table holds that the list lost (two stacks of one
    # name: the list keeps the first, TE851).
    held = [getattr(t, "_stacked_config", None) for t in getattr(source, "_tables", None) or []]
    stacks = [*(getattr(source, "_stacked_configs", None) or []), *(s for s in held if s)]
    for made in stacks:
        if id(made) in seen:
            continue
        seen.add(id(made))
        stack = target.stacks.add()
        stack.stack_name = str(made.stack_table_name)
        stack.tables.extend(str(t.name) for t in made.tables)
        stack.feature_names.extend(str(f) for f in made.feature_names)
        stack.stack_num_embeddings = int(made.stack_num_embeddings)
        stack.stack_embedding_dim = int(made.stack_embedding_dim)
        stack.total_sample_count_multiplier = int(made.total_sample_count_multiplier)
        for field in (
            "row_offsets_in_shard",
            "shard_rotations",
            "padded_vocab_sizes",
            "padded_embedding_dims",
        ):
            getattr(stack, field).update({str(k): int(v) for k, v in getattr(made, field).items()})


def spec_from_torchrec(
    tables_or_collection: Any,
    *,
    collection: str | None = None,
    optimizer: Any = None,
    optimizer_kwargs: Mapping[str, Any] | None = None,
    batch_size: int | None = None,
    global_device_count: int | None = None,
    num_sc_per_device: int | None = None,
    auto_stack: bool = False,
    activation_mem_bytes_limit: int | None = None,
    stack_calls: Sequence[Mapping[str, Any]] = (),
) -> Any:
    """The TorchRecSpec of the tables (or built collection) ``tables_or_collection`` (see the
    module's docstring)."""
    from tpuemb_cli.frontends.torchrec.pb import TorchRecSpec

    spec = TorchRecSpec()
    built = _is_collection(tables_or_collection)
    tables = tables_or_collection._tables if built else list(tables_or_collection or [])
    for table in tables:
        _table(table, spec.tables.add())
    for call in stack_calls:
        _stack_call(call, spec.stack_calls.add())
    if built:
        module = tables_or_collection
        spec.collection.type = type(module).__name__
        _optimizer(
            module._optimizer_type,
            getattr(module, "_optimizer_kwargs", None),
            spec.collection.optimizer,
        )
        spec.collection.batch_size = int(module._batch_size)
        spec.collection.global_device_count = int(module._global_device_count)
        spec.collection.num_sc_per_device = int(module._num_sc_per_device)
        _stacks(module, spec)
        return spec
    if collection is None:
        if global_device_count is not None:
            spec.prepare.global_device_count = global_device_count
        if num_sc_per_device is not None:
            spec.prepare.num_sc_per_device = num_sc_per_device
        return spec
    spec.collection.type = _COLLECTIONS.get(collection, collection)
    _optimizer(optimizer, optimizer_kwargs, spec.collection.optimizer)
    for field, given in (
        ("batch_size", batch_size),
        ("global_device_count", global_device_count),
        ("num_sc_per_device", num_sc_per_device),
        ("activation_mem_bytes_limit", activation_mem_bytes_limit),
    ):
        if given is not None:
            setattr(spec.collection, field, int(given))
    spec.collection.auto_stack = bool(auto_stack)
    return spec


def lint_torchrec(
    tables_or_collection: Any,
    *,
    tpu: str | None = None,
    isolated: bool = False,
    **options: Any,
) -> list[Finding]:
    """Findings for ``spec_from_torchrec(tables_or_collection, **options)``: the TorchRec rules
    at the spec's field paths (``tables[1].max_seq_len``), with the working directory's
    configuration (``.tpuemb.toml``; none when ``isolated``) and ``tpu``, as
    ``tpuemb_cli.lint_file`` takes them."""
    from tpuemb_cli.api import lint_objects
    from tpuemb_cli.load import Document

    spec = spec_from_torchrec(tables_or_collection, **options)
    document = Document("<torchrec objects>", "binary", "TorchRecSpec", spec, None)
    return lint_objects(document, tpu, isolated)
