"""Every number of an EmbeddingSpecProto -- each integer and float field at every nesting level,
the optimizer's included (jax-tpu-embedding 0.2.0's proto: tests/data/jax/compile/
explicit.library-0.2.0.pbtxt) -- at 0, -1, 2^31, 2^63-1, NaN and inf where its type holds them,
and past its type's range (a load problem): `tpuemb check` gives findings or a clean pass, never a
traceback or an internal error, and the same findings with and without a TPU named, but for the
rules that read the chip's memory (issue 36). The slow tests add every chip and `explain
--memory`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor

from tests.test_jax_integer_sweep import RANGES, Place, _set, number_places
from tpuemb_cli.cli import main
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto

SOURCE = Path(__file__).parent / "data" / "jax" / "compile" / "explicit.library-0.2.0.pbtxt"
FLOATS = (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)
INTEGERS = (0, -1, 2**31, 2**63 - 1, 2**63)  # 2^63: past every signed 64-bit field
NUMBERS = (0.0, -1.0, float(2**31), float(2**63 - 1), math.nan, math.inf, -math.inf)
MARKER = 987654321
# The rules whose verdict a named TPU may change: they hold the stacks against its HBM and its
# SparseCores a device (TE671: a COO buffer too large on that chip only). Every other rule reads
# the proto alone, and must say the same with or without --tpu.
CHIP_RULES = {"TE601", "TE602", "TE603", "TE671"}
CHIPS = ("v5p-8",)
ALL_CHIPS = ("v5p-8", "v6e-8", "tpu7x", "v5p", "v5litepod-8", "v4-8")


BASE = text_format.Parse(SOURCE.read_text(), EmbeddingSpecProto())


def _proto() -> EmbeddingSpecProto:
    copy = EmbeddingSpecProto()
    copy.CopyFrom(BASE)
    return copy


def _texts(place: Place, kind: int) -> list[tuple[str, str]]:
    """(value as written, the proto's text) for each value of the field's sweep."""
    texts = []
    for value in NUMBERS if kind in FLOATS else INTEGERS:
        mutated = _proto()
        held = kind in FLOATS or RANGES[kind][0] <= value <= RANGES[kind][1]
        _set(mutated, place, value if held else MARKER)
        text = text_format.MessageToString(mutated)
        if not held:  # written in the text only: the loader reports it
            assert text.count(f": {MARKER}\n") == 1
            text = text.replace(f": {MARKER}\n", f": {value}\n")
        texts.append((str(value), text))
    return texts


PLACES = list(number_places(_proto(), (*RANGES, *FLOATS)))
IDS = [".".join(map(str, place)) for place, _ in PLACES]


def _check(paths: list[Path], *options: str) -> dict[str, list[tuple[str, str, str]]]:
    """Each file's findings (rule, field, message), from one `check` of them all."""
    names = [str(path) for path in paths]
    result = CliRunner().invoke(main, ["check", "--format", "json", *names, *options])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code in (0, 1), output
    assert "Traceback" not in output and "TE010" not in output, output
    found: dict[str, list[tuple[str, str, str]]] = {name: [] for name in names}
    for f in json.loads(result.stdout)["findings"]:
        found[f["file"]].append((f["rule"], f["field"], f["message"]))
    return {name: sorted(findings) for name, findings in found.items()}


def _sweep(place: Place, kind: int, tmp_path: Path, chips: tuple[str, ...]) -> None:
    # Every value of the field in one folder, checked in one run (without --tpu, then with each
    # chip): the verdicts are each file's, and a run per value cost the suite seconds.
    paths, values = [], []
    for number, (value, text) in enumerate(_texts(place, kind)):
        path = tmp_path / f"stacked{number}.pbtxt"
        path.write_text(text)
        paths.append(path)
        values.append(value)
    alone = _check(paths)
    for path, value in zip(paths, values, strict=True):
        if kind not in FLOATS and value == str(2**63):
            assert any(code == "TE005" for code, *_ in alone[str(path)]), (place, value)
    for chip in chips:
        named = _check(paths, "--tpu", chip)
        for path, value in zip(paths, values, strict=True):
            changed = set(alone[str(path)]) ^ set(named[str(path)])
            differ = {finding[0] for finding in changed}
            assert differ <= CHIP_RULES, (place, value, chip, changed)


def test_the_sweep_reaches_every_kind_of_number() -> None:
    for expected in (
        "stacked_table_specs.0.stack_vocab_size",
        "stacked_table_specs.0.max_ids_per_partition",
        "stacked_table_specs.0.activation_mem_bytes_limit",
        "stacked_table_specs.0.table_specs.0.shard_rotation",
        "stacked_table_specs.0.table_specs.0.optimizer.learning_rate",
        "stacked_table_specs.0.table_specs.0.feature_specs.0.output_shape.1",
        "stacked_table_specs.1.table_specs.0.optimizer.float_params.initial_accumulator_value",
    ):
        assert expected in IDS, expected


@pytest.mark.parametrize(("place", "kind"), PLACES, ids=IDS)
@pytest.mark.slow
def test_a_number_gives_one_verdict_with_or_without_a_tpu(
    place: Place, kind: int, tmp_path: Path
) -> None:
    _sweep(place, kind, tmp_path, CHIPS)


@pytest.mark.slow
@pytest.mark.parametrize(("place", "kind"), PLACES, ids=IDS)
def test_a_number_gives_one_verdict_on_every_chip(place: Place, kind: int, tmp_path: Path) -> None:
    _sweep(place, kind, tmp_path, ALL_CHIPS)
    path = tmp_path / "explained.pbtxt"
    for _, text in _texts(place, kind):
        path.write_text(text)
        for options in ([], ["--tpu", "v5p-8"], ["--tpu", "v6e-8"]):
            result = CliRunner().invoke(main, ["explain", "--memory", str(path), *options])
            output = result.output + (result.stderr if result.stderr_bytes is not None else "")
            assert result.exit_code in (0, 1, 2) and "Traceback" not in output, output
            assert "(a bug)" not in output, output
