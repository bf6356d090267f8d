"""`tpuemb stats` against jax-tpu-embedding's own host preprocessing (`make test-jax`; skipped
where the library is not installed).

For generated cases -- 1 to 20 tables alone, auto-stacked or stacked by hand, tables shared by
two features, 1 to 64 devices (all of them local, or a process's share), 2 and 4 SparseCores a
device, ids uniform, Zipf-skewed or a few hot ids, dense and ragged samples (some empty), with
and without weights, batches whose last rows no SparseCore reads, limits below the data (with
allow_id_dropping) and at it (without), minibatching on and off -- the library stacks and
prepares the FeatureSpecs on CPU, writes its EmbeddingSpecProto and preprocesses the ids
(``preprocess_sparse_dense_matmul_input``). `tpuemb stats`, run on the proto (or, for some
cases, on the tpuemb spec `spec_from_jax` writes of the same FeatureSpecs) and the ids written
as .npy, .npz and CSV files, must print the library's statistics element for element. The files
`-o` writes must load in the library's NPZ and CSV FDO clients to the same statistics, and
``update_preprocessing_parameters`` must set each stack's limits from them. Without
allow_id_dropping, the library's preprocessing (in a process of its own) aborts exactly where
`tpuemb stats` says it does (``aborts_without_id_dropping``), and runs where it says not.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

import numpy as np  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.fdo import csv_file_fdo_client, file_fdo_client  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402

from tpuemb_cli.cli import main  # noqa: E402
from tpuemb_cli.jax import spec_from_jax  # noqa: E402

PROTO_HEADER = (
    "# proto-message: third_party.py.jax_tpu_embedding.sparsecore_lib_proto.EmbeddingSpecProto\n"
)
SPEC_HEADER = "# proto-message: tpuemb.spec.EmbeddingSpec\n"
ROOT = Path(__file__).parent.parent
CASES = range(36)


def _initializer(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


class Case:
    """One generated setup; `build` makes fresh FeatureSpecs and the same ids each time."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        rng = random.Random(4000 + seed)
        self.devices = {0: 1, 1: 64}.get(seed, rng.choice([1, 2, 4, 8, 16, 32, 64]))
        self.cores = (2, 4)[seed % 2]
        self.local = rng.choice([d for d in (1, 2, 4, 8) if d <= self.devices] + [self.devices])
        self.stacking = ("alone", "auto", "explicit")[seed % 3]
        self.count = {2: 20, 3: 1, 5: 12}.get(seed, rng.randint(1, 8))
        self.distribution = ("uniform", "zipf", "hot")[(seed // 3) % 3]
        self.dropping = seed % 5 != 4  # the others run at the data's own limits, without dropping
        # Minibatching needs an all-reduce across hosts: one process feeding every device.
        self.minibatching = self.local == self.devices and self.devices <= 8 and seed % 4 == 1
        self.via_spec = seed % 4 == 2
        self.draws = rng.getstate()

    def build(self) -> tuple[list[Any], dict[str, list[str]], dict[str, Any]]:
        """(features, explicit stacks, each feature's ids as the library takes them)."""
        rng = random.Random()
        rng.setstate(self.draws)
        nrng = np.random.default_rng(self.seed)
        optimizer = embedding_spec.SGDOptimizerSpec(learning_rate=0.1)
        combiner = rng.choice(["sum", "mean", "sqrtn"])  # one for all: a stack has one
        tables = [
            embedding_spec.TableSpec(
                name=f"t{index}",
                vocabulary_size=rng.choice([7, 100, 1000, 50_000, rng.randint(1, 5000)]),
                embedding_dim=rng.choice([4, 8, 16]),
                initializer=_initializer,
                optimizer=optimizer,
                combiner=combiner,
                max_ids_per_partition=rng.choice([1, 4, 16, 64, 256]),
                max_unique_ids_per_partition=rng.choice([1, 2, 8, 64, 256]),
            )
            for index in range(self.count)
        ]
        slices = self.local * self.cores
        features, ids = [], {}
        for index, table in enumerate(tables):
            for copy in range(rng.choice([1, 1, 2])):  # a table shared by two features
                rows = slices * rng.choice([1, 2, 3, 8])
                # Rows no SparseCore reads (a spec's batch must divide: TE691 refuses it there).
                rows += 0 if self.via_spec else rng.choice([0, rng.randrange(self.local)])
                name = f"{rng.choice('zyxab')}{index}_{copy}"
                width = rng.choice([None, 1, 3])  # None: ragged
                feature = embedding_spec.FeatureSpec(
                    name=name,
                    table_spec=table,
                    input_shape=[rows * self.devices // self.local, width or 1],
                    output_shape=[rows * self.devices // self.local, table.embedding_dim],
                )
                features.append(feature)
                ids[name] = self._ids(nrng, table.vocabulary_size, rows, width)
        rng.shuffle(features)
        stacks: dict[str, list[str]] = {}
        if self.stacking == "explicit":
            names = [t.name for t in tables]
            rng.shuffle(names)
            while names:
                size = rng.randint(1, len(names))
                stacks[f"s{len(stacks)}"], names = names[:size], names[size:]
        return features, stacks, ids

    def _ids(self, nrng: Any, vocab: int, rows: int, width: int | None) -> Any:
        lengths = nrng.integers(0, 6, size=rows) if width is None else np.full(rows, width)
        total = int(lengths.sum())
        if self.distribution == "uniform":
            values = nrng.integers(0, vocab, size=total)
        elif self.distribution == "zipf":
            values = np.minimum(nrng.zipf(1.3, size=total) - 1, vocab - 1)
        else:
            hot = nrng.integers(0, vocab, size=3)
            values = np.where(
                nrng.random(total) < 0.7,
                hot[nrng.integers(0, 3, size=total)],
                nrng.integers(0, vocab, size=total),
            )
        values = values.astype(np.int32)
        if width is not None:
            return values.reshape(rows, width)
        splits = np.concatenate(([0], np.cumsum(lengths)))
        ragged = np.empty(rows, dtype=object)
        for row in range(rows):
            ragged[row] = values[splits[row] : splits[row + 1]]
        return ragged

    def limits(self, stack: str) -> tuple[int, int]:
        rng = random.Random(f"{self.seed}/{stack}")
        return rng.choice([2, 8, 32, 256]), rng.choice([1, 4, 16, 256])

    def prepare(self, features: list[Any], stacks: dict[str, list[str]]) -> None:
        if self.stacking == "auto":
            table_stacking.auto_stack_tables(
                features,
                self.devices,
                self.cores,
                stack_to_max_ids_per_partition=lambda name, _: self.limits(name)[0],
                stack_to_max_unique_ids_per_partition=lambda name, _: self.limits(name)[1],
            )
        for name, group in stacks.items():
            table_stacking.stack_tables(
                features,
                group,
                self.devices,
                self.cores,
                stack_to_max_ids_per_partition=lambda name, _: self.limits(name)[0],
                stack_to_max_unique_ids_per_partition=lambda name, _: self.limits(name)[1],
                stack_name=name,
            )
        jte.prepare_feature_specs_for_training(features, self.devices, self.cores)


def _write_ids(folder: Path, ids: dict[str, Any], seed: int) -> None:
    """Each feature's ids in one of the formats `tpuemb stats` reads."""
    folder.mkdir()
    archive: dict[str, Any] = {}
    for index, (name, values) in enumerate(sorted(ids.items())):
        kind = (seed + index) % 3
        if values.dtype != object:
            if kind == 0:
                np.save(folder / f"{name}.npy", values.astype(np.int64))
            else:
                archive[name] = values
            continue
        rows = [np.asarray(row, dtype=np.int64) for row in values]
        if kind == 0:
            text = "\n".join(" ".join(str(v) for v in row) for row in rows)
            (folder / f"{name}.csv").write_text(text + "\n")
        elif kind == 1:
            archive[f"{name}.values"] = np.concatenate(rows) if rows else np.zeros(0, np.int64)
            archive[f"{name}.row_lengths"] = np.array([len(r) for r in rows])
        else:
            lines = [f"{name},{s},{v}" for s, row in enumerate(rows) for v in row]
            if rows and not len(rows[-1]):  # a last empty sample: only a row count says it
                archive[f"{name}.values"] = np.concatenate(rows)
                archive[f"{name}.row_splits"] = np.concatenate(
                    ([0], np.cumsum([len(r) for r in rows]))
                )
                continue
            (folder / f"long_{name}.csv").write_text(
                "feature,sample,id\n" + "\n".join(lines) + "\n"
            )
    if archive:
        np.savez(folder / "ids.npz", **archive)


def _weights(values: Any, seed: int) -> Any:
    """Weights of the shape of ``values`` (dense or ragged): the library then sorts each
    SparseCore's ids by their place, not their sample (``kHasVariableWeights``)."""
    rng = np.random.default_rng(seed)
    if values.dtype != object:
        return rng.random(values.shape, dtype=np.float32)
    weights = np.empty(len(values), dtype=object)
    for row, ids in enumerate(values):
        weights[row] = rng.random(len(ids), dtype=np.float32)
    return weights


def _library(case: Case, features: list[Any], ids: dict[str, Any], limits_high: bool) -> Any:
    weighted = case.seed % 3 == 1  # weights change no statistic (tpuemb reads none)
    _, stats = jte.preprocess_sparse_dense_matmul_input(
        [ids[f.name] for f in features],
        [_weights(ids[f.name], case.seed) for f in features] if weighted else None,
        features,
        case.local,
        case.devices,
        num_sc_per_device=case.cores,
        allow_id_dropping=not limits_high,
        enable_minibatching=case.minibatching,
    )
    return stats


def _raise_limits(features: list[Any], stats: Any) -> None:
    """Each stack's limits set to what the data needs exactly (the library neither drops nor
    aborts there)."""
    for feature in features:
        stacked = feature.table_spec.stacked_table_spec
        name = stacked.stack_name
        feature.table_spec.stacked_table_spec = dataclasses.replace(
            stacked,
            max_ids_per_partition=max(1, int(np.max(stats.max_ids_per_partition[name]))),
            max_unique_ids_per_partition=max(
                1, int(np.max(stats.max_unique_ids_per_partition[name]))
            ),
        )


def _tpuemb(case: Case, tmp_path: Path, spec_path: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        main,
        [
            "stats",
            str(tmp_path / "ids"),
            str(spec_path),
            "--format",
            "json",
            "--local-devices",
            str(case.local),
            *(() if case.via_spec else ("--sparsecores-per-device", str(case.cores))),
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output + result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def _expected(stats: Any, name: str) -> dict[str, Any]:
    return {
        "max_ids": [int(v) for v in stats.max_ids_per_partition[name]],
        "max_unique_ids": [int(v) for v in stats.max_unique_ids_per_partition[name]],
        "required_buffer_size": [int(v) for v in stats.required_buffer_size_per_sc[name]],
        "id_drop_counters": int(stats.id_drop_counters[name]),
    }


@pytest.mark.parametrize("seed", CASES)
def test_stats_are_the_librarys(seed: int, tmp_path: Path) -> None:
    case = Case(seed)
    features, stacks, ids = case.build()
    spec_features, _, _ = case.build()
    case.prepare(features, stacks)
    limits_high = not case.dropping
    if limits_high:
        # The data's own maxima as the limits: measured first, with dropping, then set.
        first = _library(Case(seed), features, ids, limits_high=False)
        _raise_limits(features, first)
    stats = _library(case, features, ids, limits_high)
    _write_ids(tmp_path / "ids", ids, seed)
    if case.via_spec and not limits_high:
        names = {f.table_spec.stacked_table_spec.stack_name for f in features}
        limits = {name: case.limits(name) for name in names if case.stacking != "alone"}
        spec = spec_from_jax(
            spec_features,
            global_device_count=case.devices,
            num_sc_per_device=case.cores,
            stacks=stacks,
            auto_stack=case.stacking == "auto",
            stack_limits=limits,
        )
        spec_path = tmp_path / "model.spec.textproto"
        spec_path.write_text(SPEC_HEADER + text_format.MessageToString(spec))
    else:
        case.via_spec = False
        proto = jte.create_proto_from_feature_specs(features, case.devices, case.cores)
        spec_path = tmp_path / "model.pbtxt"
        spec_path.write_text(PROTO_HEADER + text_format.MessageToString(proto))
    ours = _tpuemb(case, tmp_path, spec_path)["stacks"]
    assert sorted(ours) == sorted(stats.max_ids_per_partition)
    for name, theirs in ((n, _expected(stats, n)) for n in ours):
        got = {key: ours[name][key] for key in theirs}
        if case.minibatching and ours[name]["aborts_without_id_dropping"]:
            # Past the limits, minibatching splits the batch by a hash tpuemb does not model:
            # the statistics (its first pass's) are the same, the drops are not said.
            del got["id_drop_counters"], theirs["id_drop_counters"]
        if limits_high:
            # Without allow_id_dropping the library drops nothing at the data's own limits.
            assert not ours[name]["aborts_without_id_dropping"]
        assert got == theirs, name


@pytest.mark.parametrize("seed", [0, 3, 7, 10])
@pytest.mark.parametrize("kind", ["npz", "csv"])
def test_fdo_files_load_in_the_librarys_clients(seed: int, kind: str, tmp_path: Path) -> None:
    case = Case(seed)
    case.minibatching = False
    features, stacks, ids = case.build()
    case.prepare(features, stacks)
    stats = _library(case, features, ids, limits_high=False)
    _write_ids(tmp_path / "ids", ids, seed)
    proto = jte.create_proto_from_feature_specs(features, case.devices, case.cores)
    spec_path = tmp_path / "model.pbtxt"
    spec_path.write_text(PROTO_HEADER + text_format.MessageToString(proto))
    out = tmp_path / "fdo"
    out.mkdir()
    case.via_spec = False
    _tpuemb(case, tmp_path, spec_path, "-o", str(out), "--fdo-format", kind)
    client = (
        file_fdo_client.NPZFileFDOClient(str(out))
        if kind == "npz"
        else csv_file_fdo_client.CSVFileFDOClient(str(out))
    )
    loaded = client.load()
    for name in stats.max_ids_per_partition:
        assert np.array_equal(
            np.ravel(loaded.max_ids_per_partition[name]), stats.max_ids_per_partition[name]
        )
        assert np.array_equal(
            np.ravel(loaded.max_unique_ids_per_partition[name]),
            stats.max_unique_ids_per_partition[name],
        )
        assert np.array_equal(
            np.ravel(loaded.required_buffer_size_per_sc[name]),
            stats.required_buffer_size_per_sc[name],
        )
        assert int(np.ravel(loaded.id_drop_counters[name])[0]) == stats.id_drop_counters[name]
    jte.update_preprocessing_parameters(features, loaded, case.cores)
    for feature in features:
        stacked = feature.table_spec.stacked_table_spec
        name = stacked.stack_name
        assert stacked.max_ids_per_partition == int(np.max(stats.max_ids_per_partition[name]))
        assert stacked.max_unique_ids_per_partition == int(
            np.max(stats.max_unique_ids_per_partition[name])
        )
        assert stacked.suggested_coo_buffer_size_per_device == int(
            np.max(stats.required_buffer_size_per_sc[name]) * case.cores
        )


def test_the_cases_cover_what_the_docstring_says() -> None:
    cases = [Case(seed) for seed in CASES]
    built = [(case, *case.build()) for case in cases]
    assert len(cases) >= 30
    assert {c.devices for c in cases} >= {1, 64}
    assert {c.cores for c in cases} == {2, 4}
    assert {c.count for c in cases} >= {1, 20}
    assert {c.stacking for c in cases} == {"alone", "auto", "explicit"}
    assert {c.distribution for c in cases} == {"uniform", "zipf", "hot"}
    assert any(c.local < c.devices for c in cases)
    assert any(c.minibatching for c in cases) and any(not c.dropping for c in cases)
    assert any(c.via_spec for c in cases)
    ragged = [any(v.dtype == object for v in ids.values()) for _, _, _, ids in built]
    assert any(ragged) and not all(ragged)
    shared = [
        len(features) > len({f.table_spec.name for f in features}) for _, features, _, _ in built
    ]
    assert any(shared)
    unread = [any(v.shape[0] % (c.local * c.cores) for v in ids.values()) for c, _, _, ids in built]
    assert any(unread)


ABORT_PROBE = """
import sys
from tests.test_jax_stats_oracle import Case, jte
case = Case(int(sys.argv[1]))
features, stacks, ids = case.build()
case.prepare(features, stacks)
jte.preprocess_sparse_dense_matmul_input(
    [ids[f.name] for f in features], None, features, case.local, case.devices,
    num_sc_per_device=case.cores, allow_id_dropping=False,
)
print("preprocessed")
"""


def abort_probe(seed: int) -> subprocess.CompletedProcess[str]:
    """The library's preprocessing of case ``seed`` without allow_id_dropping, in a subprocess
    (past a limit it aborts the process: LOG(FATAL))."""
    return subprocess.run(
        [sys.executable, "-c", ABORT_PROBE, str(seed)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"},
    )


@pytest.mark.parametrize("seed", [0, 3, 5, 8])
def test_without_id_dropping_the_library_aborts_where_tpuemb_says(
    seed: int, tmp_path: Path
) -> None:
    case = Case(seed)
    case.minibatching, case.via_spec = False, False
    features, stacks, ids = case.build()
    case.prepare(features, stacks)
    _write_ids(tmp_path / "ids", ids, seed)
    proto = jte.create_proto_from_feature_specs(features, case.devices, case.cores)
    spec_path = tmp_path / "model.pbtxt"
    spec_path.write_text(PROTO_HEADER + text_format.MessageToString(proto))
    ours = _tpuemb(case, tmp_path, spec_path)["stacks"]
    aborts = any(stack["aborts_without_id_dropping"] for stack in ours.values())
    run = abort_probe(seed)
    assert (run.returncode != 0) == aborts, run.stderr[-2000:]
    if aborts:
        assert "is greater than the set max" in run.stderr
    else:
        assert run.stdout == "preprocessed\n"
