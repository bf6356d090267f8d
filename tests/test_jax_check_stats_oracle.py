"""`tpuemb check --stats` against jax-tpu-embedding itself (`make test-jax`; skipped where the
library is not installed): for the generated cases of tests/test_jax_stats_oracle.py, the
library's own preprocessing measures each stack (`allow_id_dropping=True`), its own
`NPZFileFDOClient` writes the statistics, and `check --stats` on the EmbeddingSpecProto the
library writes says TE611 (ids dropped, or an abort) for exactly the stacks where the library
dropped ids; without `allow_id_dropping`, the library's preprocessing aborts (in a subprocess)
exactly where `check --stats` reports any TE611; `--fix` makes the library drop nothing."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from click.testing import CliRunner
from google.protobuf import text_format
from jax_tpu_embedding.sparsecore.lib.fdo import file_fdo_client

from tests.test_jax_stats_oracle import (
    CASES,
    PROTO_HEADER,
    Case,
    _library,
    abort_probe,
    jte,
)
from tpuemb_cli.cli import main
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto


def _case(seed: int, tmp_path: Path) -> tuple[Case, list[Any], Any, Path, Path]:
    """The case's features prepared, its statistics (the library's, with dropping), the
    library's proto of it and the folder its NPZ client published the statistics to."""
    case = Case(seed)
    case.minibatching = False  # drops past the limits are then the library's plain ones
    features, stacks, ids = case.build()
    case.prepare(features, stacks)
    stats = _library(case, features, ids, limits_high=False)
    proto = jte.create_proto_from_feature_specs(features, case.devices, case.cores)
    spec = tmp_path / "model.pbtxt"
    spec.write_text(PROTO_HEADER + text_format.MessageToString(proto))
    folder = tmp_path / "fdo"
    folder.mkdir()
    client = file_fdo_client.NPZFileFDOClient(str(folder))
    client.record(stats)
    client.publish()
    return case, features, stats, spec, folder


def _te611(spec: Path, folder: Path, *extra: str) -> set[str]:
    result = CliRunner().invoke(
        main,
        ["check", "--isolated", "--stats", str(folder), "--select", "TE611", *extra, str(spec)],
    )
    assert result.exit_code in (0, 1), result.output
    if "--format" not in extra:
        return set()
    findings = json.loads(result.stdout)["findings"]
    return {finding["message"].split("`")[1] for finding in findings}


@pytest.mark.parametrize("seed", CASES)
def test_check_says_ids_are_dropped_where_the_library_drops_them(seed: int, tmp_path: Path) -> None:
    _, _, stats, spec, folder = _case(seed, tmp_path)
    dropped = {name for name, count in stats.id_drop_counters.items() if int(count) > 0}
    said = _te611(spec, folder, "--format", "json")
    print(f"seed {seed}: the library dropped ids of {sorted(dropped)}; TE611 on {sorted(said)}")
    assert said == dropped


@pytest.mark.parametrize("seed", [0, 3, 5, 8, 11])
def test_without_id_dropping_the_library_aborts_where_check_says(seed: int, tmp_path: Path) -> None:
    _, _, _, spec, folder = _case(seed, tmp_path)
    said = _te611(spec, folder, "--format", "json")
    run = abort_probe(seed)
    assert (run.returncode != 0) == bool(said), run.stderr[-2000:]


@pytest.mark.parametrize("seed", [0, 3, 5, 8])
def test_after_the_fix_the_library_drops_nothing(seed: int, tmp_path: Path) -> None:
    case, features, _, spec, folder = _case(seed, tmp_path)
    args = ["check", "--isolated", "--stats", str(folder), "--select", "TE611", "--fix"]
    assert CliRunner().invoke(main, [*args, str(spec)]).exit_code == 0
    fixed = text_format.Parse(spec.read_text(), EmbeddingSpecProto())
    limits = {
        s.stack_name: (s.max_ids_per_partition, s.max_unique_ids_per_partition)
        for s in fixed.stacked_table_specs
    }
    for feature in features:
        stacked = feature.table_spec.stacked_table_spec
        ids, unique = limits[stacked.stack_name]
        feature.table_spec.stacked_table_spec = dataclasses.replace(
            stacked, max_ids_per_partition=ids, max_unique_ids_per_partition=unique
        )
    _, _, ids_by_feature = Case(seed).build()
    stats = _library(case, features, ids_by_feature, limits_high=False)
    assert all(int(count) == 0 for count in stats.id_drop_counters.values())
