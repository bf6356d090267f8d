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
are two spec tables, a size of 0 is a size. What is no TorchRec object at all raises
``ValueError`` naming the table and field: a size that is no integer (a float, a string, None;
NumPy's and torch's integers are integers), past 64 bits, an attribute whose reading raises, a
table that is no SparseCoreEmbeddingConfig, a string where a list goes.
"""

from __future__ import annotations

import operator
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


# The spec holds 64-bit integers, as torch's tensors' sizes are.
_INT64 = 2**63


def integer(value: Any, what: str) -> int:
    """``value`` as an int -- an int, or anything with ``__index__`` (a NumPy or torch integer):
    what torchrec takes -- else ValueError naming ``what``: a float, a string or None is no size,
    and a value past 64 bits no spec holds."""
    if isinstance(value, bool):
        raise ValueError(f"{what} is {value!r}: not an integer")
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{what} is {value!r:.80}: not an integer") from None
    if not -_INT64 <= number < _INT64:
        raise ValueError(f"{what} is {number}: past the 64 bits a spec holds")
    return number


def _read(source: Any, name: str, what: str) -> Any:
    """An attribute of a live object; ValueError naming it when reading it raises."""
    try:
        return getattr(source, name, None)
    except Exception as error:  # a property of the user's object: whatever it raises
        raise ValueError(
            f"{what}: reading `{name}` raised {type(error).__name__}: {error}"
        ) from None


def _table(source: Any, target: Any, index: int) -> None:
    where = f"tables[{index}]"
    config = _read(source, "config", where)
    if config is None:
        config = source
    if not hasattr(config, "num_embeddings") or not hasattr(config, "embedding_dim"):
        raise ValueError(
            f"{where} is {type(source).__name__}, not a SparseCoreEmbeddingConfig (no config "
            "with num_embeddings and embedding_dim)"
        )
    target.name = str(_read(config, "name", where) or "")
    where = f"{where} (`{target.name}`)"
    target.kind = "sequence" if type(config).__name__ == "EmbeddingConfig" else "bag"
    target.num_embeddings = integer(
        _read(config, "num_embeddings", where), f"{where} num_embeddings"
    )
    target.embedding_dim = integer(_read(config, "embedding_dim", where), f"{where} embedding_dim")
    features = _read(config, "feature_names", where) or []
    if isinstance(features, str):
        raise ValueError(f"{where} feature_names is the string {features!r:.80}, not a list")
    target.feature_names.extend(str(name) for name in features)
    if target.kind == "bag":
        target.pooling = _enum_name(_read(config, "pooling", where), "SUM")
    data_type = _read(config, "data_type", where)
    if data_type is not None:
        target.data_type = _enum_name(data_type)
    for field in (
        "max_seq_len",
        "max_ids_per_partition",
        "max_unique_ids_per_partition",
        "suggested_coo_buffer_size_per_device",
    ):
        number = _read(source, field, where)
        if number is not None:
            setattr(target, field, integer(number, f"{where} {field}"))
    target.stack_table_name = str(_read(source, "stack_table_name", where) or "")


def _optimizer(optimizer: Any, kwargs: Mapping[str, Any] | None, target: Any) -> None:
    if optimizer is not None:
        target.type = optimizer if isinstance(optimizer, str) else type_name(optimizer)
    if kwargs is not None and not isinstance(kwargs, Mapping):
        raise ValueError(f"optimizer_kwargs is {type(kwargs).__name__}, not a mapping")
    for key, given in sorted((kwargs or {}).items(), key=lambda item: str(item[0])):
        if (
            key == "betas"
            and isinstance(given, (list, tuple))
            and len(given) == 2
            and all(_real(v) for v in given)
        ):
            target.kwargs["beta1"], target.kwargs["beta2"] = (float(v) for v in given)
            continue
        if _real(given):
            target.kwargs[str(key)] = float(given)
        else:
            target.other_kwargs.append(str(key))


def _real(value: Any) -> bool:
    """A bool, an int or a float (a 0-d array too): what a kwarg's number is."""
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return isinstance(value, (bool, Number)) or getattr(value, "shape", None) == ()


def type_name(value: Any) -> str:
    """A class's name (``torch.optim.Adagrad`` -> "Adagrad"), or the type of an instance's."""
    return value.__name__ if isinstance(value, type) else type(value).__name__


def _stack_call(call: Mapping[str, Any], target: Any, index: int) -> None:
    where = f"stack_calls[{index}]"
    if not isinstance(call, Mapping):
        raise ValueError(f"{where} is {type(call).__name__}, not a mapping of the call's arguments")
    target.call = str(call.get("call", "stack_tables"))
    names = call.get("table_names", call.get("tables"))
    if isinstance(names, str):
        target.tables_string = True
        target.tables.append(names)
    elif names is not None:
        if not isinstance(names, (list, tuple)):
            raise ValueError(f"{where} table_names is {type(names).__name__}, not a list")
        target.tables.extend(str(name) for name in names)
    name = call.get("stack_table_name", call.get("name"))
    if name:
        target.name = str(name)
    if call.get("rotation") is not None:
        target.rotation = integer(call["rotation"], f"{where} rotation")
    target.fail_on_excess_padding = bool(call.get("fail_on_excess_padding", False))
    for field in _CALL_FIELDS:
        if call.get(field) is not None:
            setattr(target, field, integer(call[field], f"{where} {field}"))
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
    if built:
        tables = tables_or_collection._tables
    elif isinstance(tables_or_collection, (str, bytes)) or tables_or_collection is None:
        raise ValueError(
            "spec_from_torchrec reads a list of SparseCoreEmbeddingConfig or a fused collection, "
            f"not {tables_or_collection!r:.80}"
        )
    else:
        tables = tables_or_collection
    if not isinstance(tables, (list, tuple)):
        raise ValueError(f"the tables are {type(tables).__name__}, not a list")
    for table in tables:
        _table(table, spec.tables.add(), len(spec.tables) - 1)
    if isinstance(stack_calls, (str, bytes, Mapping)) or stack_calls is None:
        raise ValueError("stack_calls is a list of the calls' arguments (dicts)")
    for index, call in enumerate(stack_calls):
        _stack_call(call, spec.stack_calls.add(), index)
    if built:
        module = tables_or_collection
        spec.collection.type = type(module).__name__
        _optimizer(
            module._optimizer_type,
            getattr(module, "_optimizer_kwargs", None),
            spec.collection.optimizer,
        )
        for field in ("batch_size", "global_device_count", "num_sc_per_device"):
            value = integer(
                _read(module, f"_{field}", "the collection"), f"the collection's {field}"
            )
            setattr(spec.collection, field, value)
        _stacks(module, spec)
        return spec
    if collection is None:
        if global_device_count is not None:
            spec.prepare.global_device_count = integer(global_device_count, "global_device_count")
        if num_sc_per_device is not None:
            spec.prepare.num_sc_per_device = integer(num_sc_per_device, "num_sc_per_device")
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
            setattr(spec.collection, field, integer(given, field))
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
