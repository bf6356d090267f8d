"""The library side of the TorchRec oracle: runs torchrec 1.9.2's own
``torchrec.experimental.torch_tpu`` code on CPU for a case of tests/torchrec_cases.py and reports,
as JSON-able dicts, exactly what the library did (the stacks it made, the exception it raised and
where, the warnings it logged, what the fused module holds, what a checkpoint round trip does).

Imported only in the oracle venv (build/venv-torchrec); torch and torchrec are imported inside the
functions, so importing this module without them does nothing.

The stand-in
------------
Two things in torch_tpu do not run on a CPU-only install, and this module stands in for those two
and for nothing else (everything else, stacking, padding, weight layout, optimizer states, DCP
planners, is torchrec's own code running unmodified):

1. ``torchrec/experimental/torch_tpu/datasets/input_preprocessing.py:31`` imports the native
   extension ``torchrec.experimental.torch_tpu.datasets.pybind_input_preprocessing``, which the
   wheel does not ship (torchrec's setup.py does not build it), and
   ``modules/fused_embedding_modules.py:31`` imports input_preprocessing, so the fused collections
   fail to import with ``ImportError: cannot import name 'pybind_input_preprocessing'``.
   :func:`install_standin` puts a stub module under that name in ``sys.modules`` (only if the real
   one cannot be found). The stub's ``SparseCorePreprocessorBackend`` records its constructor's
   arguments (the tables metadata the preprocessor builds: per feature row_offset, col_offset,
   col_shift, batch_size, combiner, max_col_id) in ``STANDIN_BACKENDS`` and raises
   ``NotImplementedError`` from ``preprocess``: nothing here preprocesses ids.
2. ``_SparseCoreFusedEmbeddingBase.__init__`` (``modules/fused_embedding_modules.py:402``) calls
   ``torch.device("tpu")``, which CPU torch 2.14 refuses with ``RuntimeError: Expected one of cpu,
   cuda, ... device type at start of device string: tpu``; every tensor the constructor makes is
   then created on, or moved ``.to()``, that device. :func:`tpu_is_cpu` rebinds the name ``torch``
   in that one module's globals, for the duration of one constructor call, to a proxy that forwards
   every attribute to the real torch except ``device``, which maps the device string "tpu" to
   "cpu". So ``self._device`` is ``cpu``, the ``.to(self._device)`` and ``device=self._device``
   calls put the weights on the CPU, and line 564's ``torch.accelerator.synchronize()`` is skipped
   because the device type is not "tpu". With a process group and global_device_count > 1 the
   constructor also calls ``dt.init_device_mesh("tpu", ...)`` (line 405), whose mesh then fails
   ``DTensor.from_local`` (line 491) with the same RuntimeError; the same context rebinds ``dt``
   in that module to a proxy whose ``init_device_mesh`` maps "tpu" to "cpu" (a gloo mesh). Both
   names are restored afterwards.

Case format: see tests/torchrec_cases.py (its docstring is the reference). Outcome format: see
:func:`run_library`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import sys
import time
import traceback
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PKG = "torchrec.experimental.torch_tpu"
PYBIND_NAME = f"{PKG}.datasets.pybind_input_preprocessing"
FUSED_NAME = f"{PKG}.modules.fused_embedding_modules"

# What the stub backend was constructed with, newest last: one dict per SparseCoreInputPreprocessor
# built while the stand-in is installed (so a case can report the preprocessor's table metadata).
STANDIN_BACKENDS: list[dict[str, Any]] = []

# A table row's known value in a checkpoint case: the table's index in the saving case and the row
# number, both recoverable from one float32 (exact below 2**24: tables < 16, rows < 1_000_000).
ROW_CODE_TABLE = 1_000_000


def row_code(table_index: int, row: int) -> float:
    return float((table_index + 1) * ROW_CODE_TABLE + row)


def decode_row(value: float) -> tuple[int, int] | None:
    """The (table index, row) a row's value names, or None for a padding / unset row (0)."""
    v = round(value)
    if v < ROW_CODE_TABLE:
        return None
    return v // ROW_CODE_TABLE - 1, v % ROW_CODE_TABLE


# ---------------------------------------------------------------- the stand-in


class _StandinBackend:
    """Stands in for pybind_input_preprocessing.SparseCorePreprocessorBackend: records, never
    preprocesses."""

    def __init__(self, *args: Any) -> None:
        STANDIN_BACKENDS.append({"args": args})

    def preprocess(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "stand-in for the native pybind_input_preprocessing backend: it does not preprocess"
        )


def _lib(name: str) -> Any:
    """A torchrec module, imported on first use (and typed Any: torchrec ships no stubs the
    project's type check could see)."""
    return importlib.import_module(name)


def install_standin() -> bool:
    """Installs the pybind stub if the real extension is missing; True when the stub is in use."""
    if PYBIND_NAME in sys.modules:
        return getattr(sys.modules[PYBIND_NAME], "IS_TPUEMB_STANDIN", False) is True
    try:
        spec = importlib.util.find_spec(PYBIND_NAME)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        return False
    stub = types.ModuleType(PYBIND_NAME)
    stub.__doc__ = "tpuemb's stand-in for torch_tpu's native input-preprocessing extension."
    stub.SparseCorePreprocessorBackend = _StandinBackend  # type: ignore[attr-defined]
    stub.IS_TPUEMB_STANDIN = True  # type: ignore[attr-defined]
    sys.modules[PYBIND_NAME] = stub
    return True


class _TorchWithTpuAsCpu:
    """Forwards everything to torch except ``device("tpu")``, which is the CPU."""

    def __init__(self, torch_module: Any) -> None:
        self._torch = torch_module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._torch, name)

    def device(self, spec: Any, *args: Any) -> Any:
        if isinstance(spec, str) and spec.split(":")[0] == "tpu":
            return self._torch.device("cpu")
        return self._torch.device(spec, *args)


class _DTensorWithTpuAsCpu:
    """Forwards everything to torch.distributed.tensor except ``init_device_mesh("tpu", ...)``,
    which makes the mesh on the CPU (line 405; only reached with a process group and
    global_device_count > 1)."""

    def __init__(self, dt_module: Any) -> None:
        self._dt = dt_module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dt, name)

    def init_device_mesh(self, device_type: str, *args: Any, **kwargs: Any) -> Any:
        if device_type == "tpu":
            device_type = "cpu"
        return self._dt.init_device_mesh(device_type, *args, **kwargs)


@contextlib.contextmanager
def tpu_is_cpu() -> Iterator[None]:
    """For the duration, fused_embedding_modules' ``torch.device("tpu")`` is the CPU (and so is
    its ``dt.init_device_mesh("tpu", ...)``)."""
    install_standin()
    fem: Any = _lib(FUSED_NAME)
    real_torch, real_dt = fem.torch, fem.dt
    fem.torch = _TorchWithTpuAsCpu(real_torch)
    fem.dt = _DTensorWithTpuAsCpu(real_dt)
    try:
        yield
    finally:
        fem.torch, fem.dt = real_torch, real_dt


# ---------------------------------------------------------------- building a case


def _make_tables(case: dict[str, Any]) -> list[Any]:
    SparseCoreEmbeddingConfig = _lib(f"{PKG}.modules.embedding_configs").SparseCoreEmbeddingConfig
    tr_configs = _lib("torchrec.modules.embedding_configs")
    EmbeddingBagConfig = tr_configs.EmbeddingBagConfig
    EmbeddingConfig = tr_configs.EmbeddingConfig
    PoolingType = tr_configs.PoolingType

    tables = []
    for t in case["tables"]:
        common: dict[str, Any] = {
            "name": t["name"],
            "num_embeddings": t["num_embeddings"],
            "embedding_dim": t["embedding_dim"],
            "feature_names": list(t["feature_names"]),
        }
        # Optional: with an explicit init range torchrec's config does not compute
        # +-sqrt(1 / num_embeddings) itself (which refuses num_embeddings <= 0).
        for k in ("weight_init_min", "weight_init_max"):
            if t.get(k) is not None:
                common[k] = t[k]
        if t.get("kind", "bag") == "bag":
            # pooling None on a bag table means "the config's default" (SUM): not passed.
            if t.get("pooling") is not None:
                common["pooling"] = PoolingType[t["pooling"]]
            cfg: Any = EmbeddingBagConfig(**common)
        else:
            cfg = EmbeddingConfig(**common)
        tables.append(
            SparseCoreEmbeddingConfig(
                config=cfg,
                max_seq_len=t.get("max_seq_len"),
                max_ids_per_partition=t.get("max_ids_per_partition", 256),
                max_unique_ids_per_partition=t.get("max_unique_ids_per_partition", 256),
                suggested_coo_buffer_size_per_device=t.get("suggested_coo_buffer_size_per_device"),
                stack_table_name=t.get("stack_table_name"),
            )
        )
    return tables


def _torchrec_frames(exc: BaseException) -> list[str]:
    """The exception's traceback frames inside torchrec, innermost last, as 'path:line fn'."""
    out = []
    for fr in traceback.extract_tb(exc.__traceback__):
        p = Path(fr.filename).as_posix()
        if "/torchrec/" in p:
            out.append(f"torchrec/{p.split('/torchrec/', 1)[1]}:{fr.lineno} {fr.name}")
    return out


def _reraise_fatal(e: BaseException) -> None:
    """Everything the library raises is reported, but not an interrupt or an exit."""
    if isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        raise e


def _refusal(where: str, exc: BaseException) -> dict[str, Any]:
    # torch.distributed.checkpoint wraps a rank's exception in CheckpointException (a
    # BaseException, not an Exception) holding {rank: (exception, StackSummary)}: report the
    # library's exception inside it, and the wrapper's name apart.
    wrapper = None
    failures = getattr(exc, "failures", None) or getattr(exc, "_failures", None)
    if isinstance(failures, dict) and failures:
        inner = next(iter(failures.values()))
        if isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
            wrapper = type(exc).__name__
            exc = inner[0]
    frames = _torchrec_frames(exc)
    return {
        "where": where,
        "type": type(exc).__name__,
        "message": str(exc),
        "raised_at": frames[-1] if frames else None,
        "frames": frames,
        "wrapped_in": wrapper,
    }


def _stack_extras(sc: Any) -> dict[str, Any]:
    """What a stack says beyond to_dict(): the properties the preprocessor and module read."""
    out: dict[str, Any] = {
        "max_ids_per_partition": sc.max_ids_per_partition,
        "max_unique_ids_per_partition": sc.max_unique_ids_per_partition,
        "suggested_coo_buffer_size_per_device": sc.suggested_coo_buffer_size_per_device,
        "max_seq_len": sc.max_seq_len,
        "is_unpooled": sc.is_unpooled,
        "total_features": sc.total_features,
        "table_count": len(sc.tables),
    }
    try:
        out["pooling"] = sc.pooling.name
    except AttributeError as e:
        out["pooling"] = f"AttributeError: {e}"
    return out


def _shape(t: Any) -> list[int]:
    return [int(x) for x in t.shape]


def _module_report(mod: Any) -> dict[str, Any]:
    weight_dict = getattr(mod, mod._weight_dict_name)
    rep: dict[str, Any] = {
        "class": type(mod).__name__,
        "device": str(mod.device),
        "weight_dict_name": mod._weight_dict_name,
        "stack_names": [sc.stack_name for sc in mod.stacked_configs],
        "weights": {},
        "learning_rates": {k: float(v.item()) for k, v in mod.learning_rates.items()},
        "accumulators": {k: _shape(v) for k, v in mod.accumulators.items()},
        "accumulator_fill": {
            k: (float(v.flatten()[0].item()) if v.numel() else None)
            for k, v in mod.accumulators.items()
        },
        "momentums": {k: _shape(v) for k, v in mod.momentums.items()},
        "velocities": {k: _shape(v) for k, v in mod.velocities.items()},
        "optimizer_type": getattr(mod.optimizer_type(), "__name__", repr(mod.optimizer_type())),
        "optimizer_kwargs": {k: _jsonable(v) for k, v in mod.optimizer_kwargs().items()},
        "initial_lr": mod.get_initial_lr(),
        "state_dict": {k: _shape(v) for k, v in mod.state_dict().items()},
    }
    for sc in mod.stacked_configs:
        name = sc.stack_name
        if name in weight_dict:
            w = weight_dict[name].weight
            is_dt = hasattr(w, "to_local")
            rep["weights"][name] = {
                # This process's rows (a DTensor's local shard, else the tensor itself) ...
                "local_shape": _shape(w.to_local() if is_dt else w),
                # ... the tensor's own shape (a DTensor's is global) ...
                "param_shape": _shape(w),
                # ... and the stack config's global size.
                "global_shape": [sc.stack_num_embeddings, sc.stack_embedding_dim],
                "is_dtensor": is_dt,
                "dtype": str(w.dtype),
            }
        else:
            rep["weights"][name] = None
    # The collection's own view of its tables (what standard TorchRec code would see).
    if hasattr(mod, "embedding_bag_configs"):
        rep["exposed_configs"] = [c.name for c in mod.embedding_bag_configs()]
    else:
        rep["exposed_configs"] = [c.name for c in mod.embedding_configs()]
    try:
        unst = mod.get_unstacked_table_weights()
        rep["unstacked_shapes"] = {k: _shape(v) for k, v in unst.items()}
    except BaseException as e:  # report, never crash: this is what the library does
        _reraise_fatal(e)
        rep["unstacked_shapes"] = _refusal("get_unstacked_table_weights", e)
    rep["unstack_probe"] = _unstack_probe(mod)
    try:
        opt = mod.fused_optimizer
        rep["fused_optimizer"] = {
            "params": list(opt.params.keys()),
            "state": {
                pk: sorted(opt.state[p].keys()) if p in opt.state else None
                for pk, p in opt.params.items()
            },
            "lr": [float(g["lr"]) for g in opt.param_groups],
        }
    except BaseException as e:
        _reraise_fatal(e)
        rep["fused_optimizer"] = _refusal("fused_optimizer", e)
    return rep


def _unstack_probe(mod: Any) -> Any:
    """Runs the collection's own unstack_activations on zero activations of the shape the
    SparseCore lookup returns per stack ([batch per feature * features, stack dim]; pure tensor
    code, runs on CPU), and reports the per-feature output shapes or the exception."""
    import torch

    try:
        raw = {
            sc.stack_name: torch.zeros(
                mod._get_batch_size_per_feature(sc) * sc.total_features, sc.stack_embedding_dim
            )
            for sc in mod.stacked_configs
        }
        out = mod.unstack_activations(raw, None)
    except BaseException as e:
        _reraise_fatal(e)
        return _refusal("unstack_activations", e)
    if isinstance(out, dict):  # EmbeddingCollection: feature -> JaggedTensor
        return {k: _shape(v.values()) for k, v in out.items()}
    return {"keys": list(out.keys()), "values": _shape(out.values())}  # KeyedTensor


def _jsonable(v: Any) -> Any:
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return repr(v)


def _optimizer_class(name: Any) -> Any:
    """torch.optim's class of that name; a name torch.optim lacks is passed through as given
    (so a case can hand the library a string such as "sgd")."""
    import torch

    if isinstance(name, str) and hasattr(torch.optim, name):
        return getattr(torch.optim, name)
    return name


class _WarningCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _capture_warnings() -> Iterator[list[str]]:
    """Every WARNING+ record logged (torch_tpu logs through the root logger) during the block."""
    h = _WarningCapture()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(h)
    if root.level > logging.WARNING or root.level == logging.NOTSET:
        root.setLevel(logging.WARNING)
    try:
        yield h.messages
    finally:
        root.removeHandler(h)
        root.setLevel(old_level)


def build_module(case: dict[str, Any], tables: list[Any]) -> tuple[Any, Any]:
    """Constructs the case's fused collection with the stand-in. Returns (module, exception):
    the module object exists even when its __init__ raised (made with __new__ first), so the
    caller can see which weights were built before the refusal."""
    install_standin()
    fem = _lib(FUSED_NAME)
    m = case["module"]
    cls = (
        fem.SparseCoreFusedEmbeddingBagCollection
        if m.get("collection", "bag") == "bag"
        else fem.SparseCoreFusedEmbeddingCollection
    )
    kwargs: dict[str, Any] = {
        "tables": tables,
        "optimizer_type": _optimizer_class(m.get("optimizer", "SGD")),
        "optimizer_kwargs": m.get("optimizer_kwargs"),
    }
    for k in ("batch_size", "global_device_count", "num_sc_per_device", "auto_stack"):
        if k in m:
            kwargs[k] = m[k]
    if m.get("activation_mem_bytes_limit") is not None:
        kwargs["activation_mem_bytes_limit"] = m["activation_mem_bytes_limit"]
    obj = cls.__new__(cls)
    with tpu_is_cpu():
        try:
            obj.__init__(**kwargs)
        except BaseException as e:
            _reraise_fatal(e)
            return obj, e
    return obj, None


def _partial_weights(obj: Any, case: dict[str, Any]) -> list[str]:
    """Stack names whose weight the refused constructor had already registered."""
    name = "embedding_bags" if case["module"].get("collection", "bag") == "bag" else "embeddings"
    try:
        d = obj._modules.get(name)
    except AttributeError:
        return []
    return list(d.keys()) if d is not None else []


def run_library(case: dict[str, Any]) -> dict[str, Any]:
    """Builds the case with torchrec's own code and reports what it did.

    Returns ``{"id", "refused", "stacks", "stack_extras", "call_results", "warnings", "module",
    "weights_built_before_refusal", "preprocessor", "seconds"}``:

    - refused: None, or ``{"where": "table_config" | "stack_tables" | "auto_stack_tables" |
      "prepare_tables_for_stacking" | "constructor" | "preprocessor", "type", "message",
      "raised_at" (innermost torchrec frame, 'torchrec/...py:LINE function'), "frames"}``.
    - stacks: ``StackedSparseCoreEmbeddingConfig.to_dict()`` of the library's final list (the
      module's ``stacked_configs``, or prepare_tables_for_stacking's return); on a refusal, of
      every distinct stack the calls made before it, in order. stack_extras: the matching
      properties to_dict() leaves out (max ids, max_seq_len, pooling ...).
    - call_results: per stack_calls entry, the stack names it returned.
    - module: see ``_module_report``; None when there is no module or it was refused.
    - weights_built_before_refusal: for a refused constructor, the stacks whose weight it had
      already registered ([] = refused before any weight).
    - preprocessor: only when the case sets ``"preprocessor": true`` (and module is given): the
      tables metadata SparseCoreInputPreprocessor hands its (stand-in) backend.
    """
    t0 = time.perf_counter()
    out: dict[str, Any] = {
        "id": case.get("id"),
        "refused": None,
        "stacks": [],
        "stack_extras": [],
        "call_results": [],
        "warnings": [],
        "module": None,
        "weights_built_before_refusal": None,
        "preprocessor": None,
    }
    try:
        with _capture_warnings() as warned:
            _run(case, out)
        out["warnings"] = list(warned)
    except BaseException as e:  # the harness must never crash on what the library does
        _reraise_fatal(e)
        out["refused"] = out["refused"] or _refusal("harness", e)
    out["seconds"] = round(time.perf_counter() - t0, 4)
    return out


def _run(case: dict[str, Any], out: dict[str, Any]) -> None:
    ts = _lib(f"{PKG}.modules.table_stacking")

    try:
        tables = _make_tables(case)
    except BaseException as e:
        _reraise_fatal(e)
        out["refused"] = _refusal("table_config", e)
        return
    made: list[Any] = []

    def note(stacks: list[Any]) -> None:
        for s in stacks:
            if all(s is not m for m in made):
                made.append(s)

    refused = _apply_stack_calls(case, tables, out["call_results"], note)
    if refused is not None:
        out["refused"] = refused
        _fill_stacks(out, made)
        return

    if case.get("module") is None:
        prep = case.get("prepare") or {}
        try:
            final = ts.prepare_tables_for_stacking(
                tables,
                global_device_count=prep.get("global_device_count", 1),
                num_sc_per_device=prep.get("num_sc_per_device", 2),
            )
        except BaseException as e:
            _reraise_fatal(e)
            out["refused"] = _refusal("prepare_tables_for_stacking", e)
            _fill_stacks(out, made)
            return
        _fill_stacks(out, final)
        return

    obj, err = build_module(case, tables)
    if err is not None:
        out["refused"] = _refusal("constructor", err)
        out["weights_built_before_refusal"] = _partial_weights(obj, case)
        note([t.stacked_config for t in tables if t.stacked_config is not None])
        _fill_stacks(out, made)
        return
    _fill_stacks(out, obj.stacked_configs)
    out["module"] = _module_report(obj)
    if case.get("preprocessor"):
        out["preprocessor"] = _preprocessor_report(case)


def _apply_stack_calls(
    case: dict[str, Any],
    tables: list[Any],
    call_results: list[dict[str, Any]],
    note: Any,
) -> dict[str, Any] | None:
    """Makes the case's stack_tables / auto_stack_tables calls in order on `tables`; returns the
    refusal of the first call that raises, else None."""
    ts = _lib(f"{PKG}.modules.table_stacking")

    for call in case.get("stack_calls", []):
        kind = call["call"]
        try:
            if kind == "stack_tables":
                kw: dict[str, Any] = {
                    "global_device_count": call.get("global_device_count", 1),
                    "num_sc_per_device": call.get("num_sc_per_device", 2),
                    "batch_size": call.get("batch_size", 1),
                    "fail_on_excess_padding": call.get("fail_on_excess_padding", False),
                }
                if call.get("name") is not None:
                    kw["stack_table_name"] = call["name"]
                if call.get("rotation") is not None:
                    kw["rotation"] = call["rotation"]
                res = [ts.stack_tables(tables, call["tables"], **kw)]
            elif kind == "auto_stack_tables":
                kw = {
                    "global_device_count": call.get("global_device_count", 1),
                    "num_sc_per_device": call.get("num_sc_per_device", 2),
                    "batch_size": call.get("batch_size", 1),
                    "use_short_names": call.get("use_short_names", True),
                }
                if call.get("activation_mem_bytes_limit") is not None:
                    kw["activation_mem_bytes_limit"] = call["activation_mem_bytes_limit"]
                res = ts.auto_stack_tables(tables, **kw)
            else:
                raise ValueError(f"unknown stack call {kind!r}")
        except BaseException as e:
            _reraise_fatal(e)
            return _refusal(kind, e)
        call_results.append({"call": kind, "stacks": [s.stack_name for s in res]})
        note(res)
    return None


def _fill_stacks(out: dict[str, Any], stacks: list[Any]) -> None:
    out["stacks"] = [s.to_dict() for s in stacks]
    out["stack_extras"] = [_stack_extras(s) for s in stacks]
    # to_dict() is JSON-able except for nothing known; make sure (a table's feature_names list
    # is shared with the config, copy it).
    out["stacks"] = _jsonable(out["stacks"])


def _preprocessor_report(case: dict[str, Any]) -> Any:
    """Builds SparseCoreInputPreprocessor for fresh copies of the case's tables (the library
    mutates tables when it stacks them) and returns the metadata it gave the backend."""
    install_standin()
    ip = _lib(f"{PKG}.datasets.input_preprocessing")
    m = case["module"]
    tables = _make_tables(case)
    # The explicit stacks the case made before its module (they succeeded to get here).
    _apply_stack_calls(case, tables, [], lambda _stacks: None)
    before = len(STANDIN_BACKENDS)
    try:
        ip.SparseCoreInputPreprocessor(
            tables,
            batch_size=m.get("batch_size", 1),
            global_device_count=m.get("global_device_count", 1),
            num_sc_per_device=m.get("num_sc_per_device", 2),
            auto_stack=m.get("auto_stack", False),
            **(
                {"activation_mem_bytes_limit": m["activation_mem_bytes_limit"]}
                if m.get("activation_mem_bytes_limit") is not None
                else {}
            ),
        )
    except BaseException as e:
        _reraise_fatal(e)
        return _refusal("preprocessor", e)
    if len(STANDIN_BACKENDS) == before:
        return None
    args = STANDIN_BACKENDS[-1]["args"]
    return {
        "tables_metadata": _jsonable(args[0]),
        "batch_size": args[1],
        "local_device_count": args[2],
        "global_device_count": args[3],
        "num_sc_per_device": args[4],
        "allow_id_dropping": args[5],
    }


# ---------------------------------------------------------------- checkpoints


def _fill_known_rows(mod: Any, case: dict[str, Any]) -> dict[str, Any]:
    """Sets every table's rows to row_code(t, row) through the library's own
    set_unstacked_table_weights; returns the tables it set."""
    import torch
    import torch.distributed as dist

    rank = dist.get_rank() if dist.is_initialized() else 0
    index = {t["name"]: k for k, t in enumerate(case["tables"])}
    weights = {}
    for sc in mod.stacked_configs:
        for t in sc.tables:
            if t.name in weights:
                continue
            # The module's own unstacked shape (local rows: num_embeddings // devices). Rank r
            # holds rows r * padded_vocab // devices onwards (its block of the Shard(0) weight).
            rows = t.num_embeddings // mod._global_device_count
            first = rank * (sc.padded_vocab_sizes[t.name] // mod._global_device_count)
            col = torch.tensor(
                [row_code(index[t.name], first + i) for i in range(rows)], dtype=torch.float32
            )
            weights[t.name] = col.unsqueeze(1).repeat(1, t.embedding_dim)
    mod.set_unstacked_table_weights(weights)
    return weights


def _physical_map(mod: Any) -> dict[str, list[Any]]:
    """For each stack, what each physical row of the stacked weight holds: [table, row] or None."""
    out: dict[str, list[Any]] = {}
    for name, w in mod.table_weights.items():
        w = w.to_local() if hasattr(w, "to_local") else w
        out[name] = [
            decode_row(float(w[r, 0].item())) if w.shape[1] else None for r in range(w.shape[0])
        ]
    return out


def _built_module(case: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    """The case's tables, its explicit stack calls, then its fused module: (module, refusal)."""
    tables = _make_tables(case)
    refused = _apply_stack_calls(case, tables, [], lambda _stacks: None)
    if refused is not None:
        return None, refused
    mod, err = build_module(case, tables)
    return mod, (_refusal("constructor", err) if err is not None else None)


def save_checkpoint(case: dict[str, Any], directory: str | Path) -> dict[str, Any]:
    """Builds the case's fused module (stand-in), fills known rows, and saves it with
    torch.distributed.checkpoint.save and SparseCoreSavePlanner, in this one process, no
    process group. Returns what was saved or the exception."""
    import torch.distributed.checkpoint as dcp

    SparseCoreSavePlanner = _lib(f"{PKG}.checkpoint.planners").SparseCoreSavePlanner

    t0 = time.perf_counter()
    res: dict[str, Any] = {"id": case.get("id"), "error": None}
    try:
        mod, err = _built_module(case)
        if err is not None:
            res["error"] = err
            return res
        filled = _fill_known_rows(mod, case)
        # The library's own round trip (block layout both ways), for comparison.
        back = mod.get_unstacked_table_weights()
        res["module_roundtrip_ok"] = {n: bool((w == filled[n]).all()) for n, w in back.items()}
        res["physical_rows"] = _physical_map(mod)
        sd = mod.state_dict()
        res["fqns"] = {k: _shape(v) for k, v in sd.items()}
        m = case["module"]
        dcp.save(
            sd,
            checkpoint_id=str(directory),
            planner=SparseCoreSavePlanner(
                num_sc_per_device=m.get("num_sc_per_device", 2),
                stacked_configs=mod.stacked_configs,
            ),
        )
        md = dcp.FileSystemReader(str(directory)).read_metadata()
        res["planner_data"] = _jsonable(md.planner_data)
        res["metadata_sizes"] = {
            k: [int(x) for x in getattr(v, "size", [])] for k, v in md.state_dict_metadata.items()
        }
    except BaseException as e:
        _reraise_fatal(e)
        res["error"] = _refusal("save", e)
    res["seconds"] = round(time.perf_counter() - t0, 4)
    return res


def _standard_torchrec_module(case: dict[str, Any]) -> Any:
    """A standard (CPU) TorchRec EmbeddingBagCollection / EmbeddingCollection of the case's
    tables, zero-filled so that a row the load did not write reads as 'unset'."""
    import torch

    tr_modules = _lib("torchrec.modules.embedding_modules")
    EmbeddingBagCollection = tr_modules.EmbeddingBagCollection
    EmbeddingCollection = tr_modules.EmbeddingCollection

    tables = _make_tables(case)
    cfgs = [t.config for t in tables]
    coll = case["module"].get("collection", "bag")
    mod = (
        EmbeddingBagCollection(tables=cfgs, device=torch.device("cpu"))
        if coll == "bag"
        else EmbeddingCollection(tables=cfgs, device=torch.device("cpu"))
    )
    with torch.no_grad():
        for p in mod.parameters():
            p.zero_()
    return mod


def _origin(w: Any, i: int, saved_names: list[str]) -> list[Any] | None:
    d = decode_row(float(w[i, 0].item())) if w.shape[1] else None
    if d is None:
        return None
    return [saved_names[d[0]] if 0 <= d[0] < len(saved_names) else d[0], d[1]]


def _check_rows(got: dict[str, Any], saved_case: dict[str, Any], limit: int = 12) -> dict[str, Any]:
    """Per table: are rows where the saved table had them? Lists the moved rows (first `limit`)."""
    saved_names = [t["name"] for t in saved_case["tables"]]
    out: dict[str, Any] = {}
    for name, w in got.items():
        rows = w.shape[0]
        want_t = saved_names.index(name) if name in saved_names else None
        right = 0
        moved: list[list[Any]] = []
        unset = 0
        foreign = 0
        for i in range(rows):
            d = decode_row(float(w[i, 0].item())) if w.shape[1] else None
            if d is None:
                unset += 1
            elif d == (want_t, i):
                right += 1
            else:
                if d[0] != want_t:
                    foreign += 1
                if len(moved) < limit:
                    who = saved_names[d[0]] if 0 <= d[0] < len(saved_names) else d[0]
                    moved.append([i, who, d[1]])
        out[name] = {
            # Every row's origin ([table, row] or None), for tables small enough to list.
            "rows_from": (
                [_origin(w, i, saved_names) for i in range(rows)] if rows <= 4096 else None
            ),
            "rows": rows,
            "right": right,
            "unset": unset,
            "from_other_table": foreign,
            "wrong": rows - right - unset,
            "moved_first": moved,  # [row here, table it came from, its row there]
        }
    return out


def load_checkpoint(
    saved_case: dict[str, Any],
    load_case: dict[str, Any],
    directory: str | Path,
    unshard_for_cpu: bool,
    into_fused: bool | None = None,
) -> dict[str, Any]:
    """Loads the checkpoint `saved_case` wrote (save_checkpoint) with SparseCoreLoadPlanner into
    `load_case`'s fused module (another num_sc_per_device, stacking, tables ...), or, with
    unshard_for_cpu, into standard TorchRec CPU tables of load_case's tables. `into_fused=True`
    with unshard_for_cpu loads into load_case's fused module instead (the planner's "target is
    stacked on CPU" path, planners.py:439-448). Reports per table whether each row came back in
    the right place (see _check_rows) or the exception."""
    import torch
    import torch.distributed.checkpoint as dcp

    SparseCoreLoadPlanner = _lib(f"{PKG}.checkpoint.planners").SparseCoreLoadPlanner

    if into_fused is None:
        into_fused = not unshard_for_cpu
    t0 = time.perf_counter()
    res: dict[str, Any] = {
        "id": load_case.get("id"),
        "unshard_for_cpu": unshard_for_cpu,
        "into_fused": into_fused,
        "error": None,
    }
    try:
        m = load_case["module"]
        if into_fused:
            target, err = _built_module(load_case)
            if err is not None:
                res["error"] = err
                return res
            # Make every row 'unset' first so a row the load skips shows as such.
            with torch.no_grad():
                for w in target.table_weights.values():
                    w.zero_()
            sd = target.state_dict()
            planner = SparseCoreLoadPlanner(
                num_sc_per_device=m.get("num_sc_per_device", 2),
                unshard_for_cpu=unshard_for_cpu,
                stacked_configs=None if unshard_for_cpu else target.stacked_configs,
            )
        else:
            target = _standard_torchrec_module(load_case)
            sd = target.state_dict()
            planner = SparseCoreLoadPlanner(
                num_sc_per_device=m.get("num_sc_per_device", 2), unshard_for_cpu=True
            )
        res["target_fqns"] = {k: _shape(v) for k, v in sd.items()}
        with _capture_warnings() as warned:
            dcp.load(sd, checkpoint_id=str(directory), planner=planner)
        res["warnings"] = list(warned)
        res["cross_topology"] = planner.cross_topology
        if into_fused:
            got = target.get_unstacked_table_weights()
            res["physical_rows"] = _physical_map(target)
        else:
            got = {
                k.split(".")[1]: v for k, v in target.state_dict().items() if k.endswith(".weight")
            }
        res["tables"] = _check_rows(got, saved_case)
    except BaseException as e:
        _reraise_fatal(e)
        res["error"] = _refusal("load", e)
    res["seconds"] = round(time.perf_counter() - t0, 4)
    return res


def _mp_save_worker(
    rank: int, world: int, case: dict[str, Any], directory: str, port: int, out: str
) -> None:
    """One rank of save_checkpoint_multiprocess (module level: spawn pickles it by name)."""
    import json
    import os
    import warnings

    import torch.distributed as dist

    warnings.filterwarnings("ignore")
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        res = save_checkpoint(case, directory)
        Path(out, f"rank{rank}.json").write_text(json.dumps(_jsonable(res)))
    finally:
        dist.destroy_process_group()


def save_checkpoint_multiprocess(
    case: dict[str, Any], directory: str | Path, world_size: int, port: int = 29541
) -> dict[str, Any]:
    """save_checkpoint in `world_size` CPU processes (torch.multiprocessing.spawn, a gloo group):
    the module's weights are then DTensors Shard(0) over a CPU mesh (see tpu_is_cpu) and the
    checkpoint records world_size. Returns {"ranks": [each rank's save_checkpoint result]} or
    the exception. The case's global_device_count should equal world_size."""
    import json
    import tempfile

    import torch.multiprocessing as mp

    res: dict[str, Any] = {"id": case.get("id"), "error": None, "ranks": []}
    with tempfile.TemporaryDirectory() as out:
        try:
            mp.spawn(
                _mp_save_worker,
                args=(world_size, case, str(directory), port, out),
                nprocs=world_size,
            )
        except BaseException as e:
            _reraise_fatal(e)
            res["error"] = _refusal("spawn", e)
        for r in range(world_size):
            p = Path(out, f"rank{r}.json")
            res["ranks"].append(json.loads(p.read_text()) if p.exists() else None)
    return res
