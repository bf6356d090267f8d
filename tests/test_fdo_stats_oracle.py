"""tpuemb's FDO statistics reader and writer (tpuemb_cli/load/fdo) against the clients that write
the files (`make test-jax`; skipped where jax-tpu-embedding is missing).

jax-tpu-embedding 0.1.0: for each case of CASES, its own ``NPZFileFDOClient`` or
``CSVFileFDOClient`` records statistics and publishes files, one client a process
(``jax.process_index`` and ``time.time_ns`` patched to name them); then ``read_fdo_stats`` of the
directory must give exactly the client's ``load()`` (each array as ``np.atleast_2d(...).tolist()``
rows, the counters flattened) and read the files ``load()`` reads, in its order. Then tpuemb writes
what it read (``write_fdo_stats``, both kinds), and the library's clients must load it as the same
statistics, and ``update_preprocessing_parameters`` must set every stack's limits as from the
library's own files. Where the CSV client cannot write a case -- a single batch's
``id_drop_counters``, an ``int``, which ``publish`` iterates over -- the client raising is
asserted, and the file it leaves behind is read as its ``load()`` reads it.

torchrec 1.9.2: its ``CSVFileFDOClient`` and ``BaseFileFDOClient`` need no torch, but its package
imports torch; their two modules are run from torchrec's own files (an installed torchrec, or the
wheel at $TORCHREC_WHEEL) under their own names, with the packages above them empty stand-ins.
Skipped when neither is found.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import os
import sys
import time
import types
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

embedding = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.fdo import csv_file_fdo_client, file_fdo_client  # noqa: E402

import tpuemb_cli  # noqa: E402
from tpuemb_cli.load.fdo import (  # noqa: E402
    FdoError,
    FdoReading,
    StackStats,
    read_fdo_stats,
    write_fdo_stats,
)

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ("max_ids", "max_unique_ids", "required_buffer_size", "id_drop_counters")
# tpuemb's field -> the library's (SparseDenseMatmulInputStats's fields, in their order).
LIBRARY_FIELDS = dict(
    zip(
        FIELDS,
        [field.name for field in dataclasses.fields(embedding.SparseDenseMatmulInputStats)],
        strict=True,
    )
)
NUM_SC = 4


def stats(**stacks: dict[str, Any]) -> Any:
    """A SparseDenseMatmulInputStats of {stack: {field: value}}, as preprocessing returns it."""
    fields: dict[str, dict[str, Any]] = {LIBRARY_FIELDS[name]: {} for name in FIELDS}
    for stack, values in stacks.items():
        for name, value in values.items():
            fields[LIBRARY_FIELDS[name]][stack] = value
    return embedding.SparseDenseMatmulInputStats(**fields)


def batch(
    mx: list[int], uq: list[int], buf: list[int] | None = None, drop: int | None = None
) -> dict[str, Any]:
    values: dict[str, Any] = {"max_ids": np.array(mx), "max_unique_ids": np.array(uq)}
    if buf is not None:
        values["required_buffer_size"] = np.array(buf)
    if drop is not None:
        values["id_drop_counters"] = drop  # an int a stack, as SparseDenseMatmulInputStats.from_cc
    return values


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "npz" | "csv"
    # (process, recorded stats or None, publish time or None), in order; one client a process.
    steps: tuple[tuple[int, Any, int | None], ...]
    retain_history: bool = True
    raises: str = ""  # what the library's publish raises, if it cannot write the case


ONE_BATCH = ((0, stats(s0=batch([1, 4, 2, 0], [1, 2, 2, 0])), None), (0, None, 10))


CASES = [
    Case("npz-one-process-one-batch", "npz", ONE_BATCH),
    Case(
        "npz-history-one-process",
        "npz",
        (
            (0, stats(s0=batch([1, 4, 2, 0], [1, 2, 2, 0], [8, 8, 8, 8], 3)), None),
            (0, stats(s0=batch([5, 0, 2, 1], [3, 0, 1, 1], [16, 8, 8, 8], 0)), 5),
        ),
    ),
    Case(
        "npz-processes-and-timestamps",
        "npz",
        (
            (0, stats(s0=batch([1, 1], [1, 1], [4, 4], 1), s1=batch([7], [7])), 5),
            (1, stats(s0=batch([0, 9], [0, 3], [2, 8], 2), s1=batch([2], [1])), 4),
            (0, stats(s0=batch([3, 2], [3, 2], [6, 6], 0), s1=batch([1], [1])), 9),  # newest of 0
            (2, stats(s0=batch([2, 2], [2, 2], [9, 1], 7), s1=batch([3], [3])), 1),
            (1, stats(s0=batch([1, 1], [1, 1], [1, 1], 0), s1=batch([0], [0])), 12),
        ),
    ),
    Case(
        "npz-process-10-after-9-and-time-10-after-9",
        "npz",
        (
            (9, stats(s0=batch([1], [1])), 9),
            (10, stats(s0=batch([2], [2])), 9),
            (9, stats(s0=batch([3], [1])), 10),
        ),
    ),
    Case(
        "npz-a-stack-in-one-process-only",
        "npz",
        (
            (0, stats(s0=batch([1, 2], [1, 1]), s1=batch([5, 5], [2, 2])), None),
            (0, stats(s0=batch([3, 1], [1, 1]), s1=batch([1, 6], [1, 2])), 3),
            (1, stats(s0=batch([0, 7], [0, 3])), 3),
        ),
    ),
    Case("csv-one-process-one-batch", "csv", ONE_BATCH),
    Case(
        "csv-history-rows",
        "csv",
        (
            (0, stats(s0=batch([1, 4], [1, 2], [8, 8])), None),
            (0, stats(s0=batch([5, 0], [3, 0], [8, 16])), None),
            (0, stats(s0=batch([2, 2], [2, 2], [4, 4])), 7),
        ),
    ),
    Case(
        "csv-no-history",
        "csv",
        (
            (0, stats(s0=batch([1, 4], [1, 2], [8, 8], 1)), None),
            (0, stats(s0=batch([5, 0], [3, 0], [8, 16], 2)), None),
            (0, stats(s0=batch([2, 2], [2, 2], [4, 4], 0)), 7),
        ),
        retain_history=False,
    ),
    Case(
        "csv-history-with-drop-counters",
        "csv",
        (
            (0, stats(s0=batch([1, 4], [1, 2], None, 5), s1=batch([1], [1], None, 0)), None),
            (0, stats(s0=batch([5, 0], [3, 0], None, 2), s1=batch([2], [2], None, 1)), 7),
        ),
    ),
    Case(
        "csv-processes-and-timestamps",
        "csv",
        (
            (0, stats(s0=batch([1, 1, 1], [1, 1, 1], [2, 2, 2]), s1=batch([7, 1], [7, 1])), 5),
            (1, stats(s0=batch([0, 9, 0], [0, 3, 0], [2, 8, 1]), s1=batch([2, 2], [1, 1])), 4),
            (0, stats(s0=batch([3, 2, 1], [3, 2, 1], [6, 6, 6]), s1=batch([1, 1], [1, 1])), 9),
            (3, stats(s0=batch([2, 2, 2], [2, 2, 2], [9, 1, 1]), s1=batch([3, 0], [3, 0])), 1),
        ),
        retain_history=False,
    ),
    Case(
        "csv-history-across-processes",
        "csv",
        (
            (0, stats(s0=batch([1, 4], [1, 2])), None),
            (0, stats(s0=batch([5, 0], [3, 0])), 2),
            (1, stats(s0=batch([0, 6], [0, 6])), 3),
        ),
    ),
    Case(
        "csv-one-batch-with-a-drop-counter",
        "csv",
        ((0, stats(s0=batch([1, 4], [1, 2], [8, 8], 3)), 7),),
        raises="iteration over a 0-d array",
    ),
    Case(
        "csv-no-history-one-batch-with-a-drop-counter",
        "csv",
        ((0, stats(s0=batch([1, 4], [1, 2], None, 3)), 7),),
        retain_history=False,
        raises="iteration over a 0-d array",
    ),
]
IDS = [case.name for case in CASES]


def client(kind: str, base_dir: Path, retain_history: bool = True) -> Any:
    if kind == "npz":
        return file_fdo_client.NPZFileFDOClient(str(base_dir))
    return csv_file_fdo_client.CSVFileFDOClient(str(base_dir), retain_history=retain_history)


def publish(case: Case, base_dir: Path) -> None:
    clients: dict[int, Any] = {}
    for process, recorded, at in case.steps:
        fdo = clients.setdefault(process, client(case.kind, base_dir, case.retain_history))
        if recorded is not None:
            fdo.record(recorded)
        if at is not None:
            with (
                mock.patch.object(jax, "process_index", return_value=process),
                mock.patch.object(time, "time_ns", return_value=at),
            ):
                if case.raises:
                    with pytest.raises(TypeError, match=case.raises):
                        fdo.publish()
                else:
                    fdo.publish()


def as_stacks(loaded: Any) -> dict[str, StackStats]:
    """The library's load() as tpuemb's StackStats: arrays as np.atleast_2d rows."""
    found: dict[str, dict[str, Any]] = {}
    for name in FIELDS:
        for stack, array in getattr(loaded, LIBRARY_FIELDS[name]).items():
            value = np.asarray(array)
            if name == "id_drop_counters":
                found.setdefault(stack, {})[name] = tuple(int(v) for v in value.ravel())
            else:
                rows = np.atleast_2d(value).tolist()
                found.setdefault(stack, {})[name] = tuple(tuple(int(v) for v in r) for r in rows)
    return {
        stack: StackStats(
            max_ids=values.get("max_ids", ()),
            max_unique_ids=values.get("max_unique_ids", ()),
            required_buffer_size=values.get("required_buffer_size", ()),
            id_drop_counters=values.get("id_drop_counters", ()),
        )
        for stack, values in found.items()
    }


def library_files(kind: str, base_dir: Path) -> list[str]:
    fdo = client(kind, base_dir)
    found: list[str] = fdo._get_latest_files_by_process(
        [str(path) for path in base_dir.glob(f"fdo_stats*.{kind}")]
    )
    return found


def test_the_worktrees_tpuemb_is_tested() -> None:
    assert Path(tpuemb_cli.__file__).resolve().parent.parent == ROOT


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_read_matches_the_librarys_load(case: Case, tmp_path: Path) -> None:
    publish(case, tmp_path)
    loaded = client(case.kind, tmp_path).load()
    reading = read_fdo_stats(tmp_path)
    assert reading.stacks == as_stacks(loaded)
    assert [str(file) for file in reading.files] == library_files(case.kind, tmp_path)
    assert reading.source == f"jax-{case.kind}"
    every = sorted(tmp_path.iterdir())
    assert sorted(reading.files + reading.ignored) == every
    if case.raises:
        # What the client left: the rows before the counter it could not write.
        assert all(not stats.id_drop_counters for stats in reading.stacks.values())


def features() -> dict[str, Any]:
    """Four tables stacked in two stacks, s0 and s1, as a training script stacks them."""
    import jax.numpy as jnp
    from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec as es
    from jax_tpu_embedding.sparsecore.lib.nn import table_stacking

    out = {}
    for i in range(4):
        table = es.TableSpec(
            name=f"t{i}",
            vocabulary_size=64,
            embedding_dim=8,
            initializer=lambda key, shape, dtype=jnp.float32: jnp.zeros(shape, dtype),
            optimizer=es.SGDOptimizerSpec(),
            combiner="sum",
            max_ids_per_partition=99,
            max_unique_ids_per_partition=98,
            suggested_coo_buffer_size_per_device=97,
        )
        out[f"f{i}"] = es.FeatureSpec(
            name=f"f{i}", table_spec=table, input_shape=[16, 1], output_shape=[16, 8]
        )
    for name, tables in (("s0", ["t0", "t1"]), ("s1", ["t2", "t3"])):
        table_stacking.stack_tables(
            out, tables, global_device_count=1, num_sc_per_device=NUM_SC, stack_name=name
        )
    embedding.prepare_feature_specs_for_training(
        out, global_device_count=1, num_sc_per_device=NUM_SC
    )
    return out


def limits(loaded: Any) -> dict[str, tuple[int, int, int | None]]:
    specs = copy.deepcopy(features())
    embedding.update_preprocessing_parameters(specs, loaded, NUM_SC)
    out = {}
    for feature in specs.values():
        stacked = feature.table_spec.stacked_table_spec
        out[stacked.stack_name] = (
            stacked.max_ids_per_partition,
            stacked.max_unique_ids_per_partition,
            stacked.suggested_coo_buffer_size_per_device,
        )
    return out


@pytest.mark.parametrize("kind", ["npz", "csv"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_written_files_load_in_the_library(case: Case, kind: str, tmp_path: Path) -> None:
    original = tmp_path / "original"
    original.mkdir()
    publish(case, original)
    reading = read_fdo_stats(original)
    written = tmp_path / "written"
    written.mkdir()
    write_fdo_stats(written, reading.stacks, kind=kind)  # type: ignore[arg-type]
    (file,) = written.iterdir()
    assert file.name.startswith("fdo_stats_0_") and file.suffix == f".{kind}"
    reloaded = client(kind, written).load()
    assert as_stacks(reloaded) == reading.stacks
    assert read_fdo_stats(written) == FdoReading(
        reading.stacks,
        (file,),
        (),
        f"jax-{kind}",
    )
    expected = limits(client(case.kind, original).load())
    assert limits(reloaded) == expected
    for stack, stats in reading.stacks.items():
        max_ids, max_unique_ids, buffer = expected[stack]
        assert (stats.max_ids_max, stats.max_unique_ids_max) == (max_ids, max_unique_ids)
        if stats.required_buffer_size_max is not None:
            assert buffer == stats.required_buffer_size_max * NUM_SC


# -- torchrec


def _torchrec_sources() -> Iterator[tuple[str, str]]:
    prefix = "torchrec/experimental/torch_tpu/datasets/fdo/"
    found = importlib.util.find_spec("torchrec")
    wheel = Path(os.environ.get("TORCHREC_WHEEL", "/tmp/trdl/torchrec-1.9.2-py311-none-any.whl"))
    for name in ("fdo_client", "csv_file_fdo_client"):
        if found is not None and found.submodule_search_locations:
            base = Path(next(iter(found.submodule_search_locations))).parent
            yield name, (base / prefix / f"{name}.py").read_text()
        elif wheel.is_file():
            with zipfile.ZipFile(wheel) as archive:
                yield name, archive.read(f"{prefix}{name}.py").decode()
        else:
            pytest.skip("torchrec is not installed and $TORCHREC_WHEEL names no wheel")


@pytest.fixture(scope="module")
def torchrec_fdo() -> Iterator[types.SimpleNamespace]:
    package = "torchrec.experimental.torch_tpu.datasets.fdo"
    sources = list(_torchrec_sources())  # before the stand-ins hide an installed torchrec
    saved = {name: sys.modules.get(name) for name in sys.modules if name.startswith("torchrec")}
    parts = package.split(".")
    for depth in range(1, len(parts) + 1):
        stand_in = types.ModuleType(".".join(parts[:depth]))
        stand_in.__path__ = []
        sys.modules[stand_in.__name__] = stand_in
    modules = {}
    try:
        for name, source in sources:
            module = types.ModuleType(f"{package}.{name}")
            sys.modules[module.__name__] = module
            setattr(sys.modules[package], name, module)
            exec(compile(source, f"torchrec/{name}.py", "exec"), module.__dict__)
            modules[name] = module
        yield types.SimpleNamespace(**modules)
    finally:
        for name in [name for name in sys.modules if name.startswith("torchrec")]:
            del sys.modules[name]
        sys.modules.update({k: v for k, v in saved.items() if v is not None})


TORCHREC_CASES = {
    "one-process": [(0, 5, [{"a": (3, 2, 1)}])],
    "processes-timestamps-and-tables": [
        (0, 5, [{"a": (3, 2, 1), "b": (9, 9, 0)}]),
        (0, 8, [{"a": (1, 1, 4)}, {"a": (2, 6, 1), "c": (1, 1, 1)}]),
        (1, 2, [{"a": (7, 1, 2), "b": (1, 2, 3)}]),
        (10, 3, [{"b": (0, 0, 5)}]),
    ],
}
# torchrec's load() starts each maximum at 0 and so reads a negative count as 0; tpuemb refuses
# one (no statistic counts below 0), and says which file and line.
NEGATIVE = [(0, 1, [{"a": (-4, -2, -1)}]), (2, 1, [{"a": (-1, 0, 3)}])]


def _write_torchrec(
    tmp_path: Path, torchrec_fdo: types.SimpleNamespace, records_by_process: Any
) -> None:
    fdo_client = torchrec_fdo.fdo_client
    for process, at, records in records_by_process:
        writer = torchrec_fdo.csv_file_fdo_client.CSVFileFDOClient(tmp_path, process_id=process)
        for record in records:
            writer.record(
                fdo_client.KeyedSparseCoreInputStats(
                    {
                        table: fdo_client.SparseCoreInputStats(
                            dropped_count=dropped, observed_max_ids=mx, observed_max_unique_ids=uq
                        )
                        for table, (mx, uq, dropped) in record.items()
                    }
                )
            )
        with mock.patch.object(time, "time_ns", return_value=at):
            writer.publish()


def test_torchrec_negative_counts_are_refused(
    tmp_path: Path, torchrec_fdo: types.SimpleNamespace
) -> None:
    _write_torchrec(tmp_path, torchrec_fdo, NEGATIVE)
    loaded = torchrec_fdo.csv_file_fdo_client.CSVFileFDOClient(tmp_path).load()
    assert loaded.table_stats["a"].observed_max_ids == 0  # torchrec's reading
    with pytest.raises(FdoError, match="a negative count for `a`"):
        read_fdo_stats(tmp_path)


@pytest.mark.parametrize("case", list(TORCHREC_CASES))
def test_torchrec_csv_matches_its_load(
    case: str, tmp_path: Path, torchrec_fdo: types.SimpleNamespace
) -> None:
    _write_torchrec(tmp_path, torchrec_fdo, TORCHREC_CASES[case])
    loaded = torchrec_fdo.csv_file_fdo_client.CSVFileFDOClient(tmp_path).load()
    reading = read_fdo_stats(tmp_path)
    assert reading.source == "torchrec-csv"
    assert reading.stacks == {
        table: StackStats(
            max_ids=((found.observed_max_ids,),),
            max_unique_ids=((found.observed_max_unique_ids,),),
            id_drop_counters=(found.dropped_count,),
        )
        for table, found in loaded.table_stats.items()
    }
    reader = torchrec_fdo.csv_file_fdo_client.CSVFileFDOClient(tmp_path)
    assert [str(file) for file in reading.files] == reader._get_latest_files_by_process(
        [str(path) for path in tmp_path.glob("fdo_stats*.csv")]
    )
