"""Keras-RS models on disk, without Keras: `.keras` archives (recognised by content, read within
bounds) and model folders' config.json, through `tpuemb check` end to end."""

from __future__ import annotations

import io
import json
import random
import shutil
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main
from tpuemb_cli.frontends.keras.load.archive import CHUNK, members_of_file, read_archive

DATA = Path(__file__).parent / "data" / "keras-core"
# What keras-rs 0.4.0 saved on CPU (tests/data/keras-core/make.py).
SAMPLE = DATA / "mistakes.keras"
CLIPNORM = (
    "TE762 [error] table 'users' of layer 'mistakes/tower/distributed_embedding_1' goes to the "
    "SparseCores, and Keras-RS's JAX conversion refuses its Adagrad optimizer's `clipnorm` "
    '(1.0): ValueError("Unsupported optimizer option `clipnorm`.") when the layer is built on '
    "the TPU (on CPU the conversion never runs)"
)


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def _config() -> dict[str, object]:
    with zipfile.ZipFile(SAMPLE) as archive:
        value: dict[str, object] = json.loads(archive.read("config.json"))
    return value


def _archive(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_saved_model_is_checked_at_its_config_json_positions() -> None:
    result = invoke("check", "--select", "TE762", str(SAMPLE))
    name = f"{SAMPLE}!config.json"
    assert (result.exit_code, result.stderr) == (1, "")
    lines = result.stdout.splitlines()
    assert f"{name}:1:7579: {CLIPNORM}" in lines
    assert lines[-1] == "Found 4 errors in 1 file (1 file checked)."
    # The column is the clipnorm key's in config.json, which Keras writes as one line.
    text = zipfile.ZipFile(SAMPLE).read("config.json").decode()
    assert text[7578:].startswith('"clipnorm": 1.0')


def test_the_full_format_quotes_the_member() -> None:
    result = invoke("check", "--format", "full", "--select", "TE761", str(SAMPLE))
    assert result.exit_code == 1
    assert f"  --> {SAMPLE}!config.json:1:3120\n" in result.stdout
    assert '"output_shape": [32, 8]' in result.stdout
    assert "  = field: layers[0].features[4].output_shape[1]\n" in result.stdout


def test_a_model_folders_pretty_printed_config_json() -> None:
    result = invoke("check", "--select", "TE762", str(DATA / "model" / "config.json"))
    assert result.exit_code == 1
    assert f"{DATA / 'model' / 'config.json'}:475:25: {CLIPNORM}" in result.stdout.splitlines()


def test_the_clean_model_passes() -> None:
    result = invoke("check", "--tpu", "v5p-8", str(DATA / "clean.keras"))
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_a_walk_recognises_archives_by_content(tmp_path: Path) -> None:
    shutil.copy(DATA / "clean.keras", tmp_path / "model.keras")
    (tmp_path / "notes.keras").write_text("a .keras name, no zip\n")
    (tmp_path / "empty.keras").write_bytes(_archive({"readme.txt": b"x"}))
    plain = {"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": []}}
    (tmp_path / "plain.keras").write_bytes(_archive({"config.json": json.dumps(plain).encode()}))
    (tmp_path / "renamed.json").write_text(json.dumps(_config()))
    result = invoke("check", "--show-files", str(tmp_path))
    assert result.exit_code == 0
    assert sorted(result.stdout.splitlines()) == [
        f"{tmp_path}/empty.keras: skipped: the zip archive holds no config.json (a Keras "
        "model's has one)",
        f"{tmp_path}/model.keras: checked",
        f"{tmp_path}/notes.keras: skipped: it is not a zip archive (a .keras file is one)",
        f"{tmp_path}/plain.keras: skipped: a Keras model with no Keras-RS DistributedEmbedding "
        "layer",
        f"{tmp_path}/renamed.json: checked",
    ]


def test_a_named_file_that_is_no_archive_is_one_finding(tmp_path: Path) -> None:
    path = tmp_path / "notes.keras"
    path.write_text("hello\n")
    result = invoke("check", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}: TE009 [error] not a TPU embedding document: it is not a zip archive (a .keras "
        "file is one)\nFound 1 error in 1 file (1 file checked).\n",
    )


def test_broken_json_is_a_syntax_finding_at_its_place(tmp_path: Path) -> None:
    path = tmp_path / "m.keras"
    path.write_bytes(_archive({"config.json": b'{"class_name": "Functional",\n "config": {,}}'}))
    result = invoke("check", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}!config.json:2:13: TE001 [error] config.json is not valid JSON: Expecting "
        "property name enclosed in double quotes\nFound 1 error in 1 file (1 file checked).\n",
    )


def test_a_member_over_the_limit_is_not_decompressed(tmp_path: Path) -> None:
    text = json.dumps(_config()).encode()
    padded = text[:-1] + b" " * 200_000 + b"}"
    path = tmp_path / "m.keras"
    path.write_bytes(_archive({"config.json": padded}))
    assert path.stat().st_size < 100_000  # the archive is under the limit, its member is not
    result = invoke("check", "--max-file-size", "100000", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}: TE001 [error] not a readable .keras archive: config.json is {len(padded)} "
        "bytes decompressed, larger than the limit of 100000 bytes (raise it with "
        "--max-file-size)\nFound 1 error in 1 file (1 file checked).\n",
    )
    assert invoke("check", str(path)).exit_code == 1  # the default limit reads it: TE762s


def _declare(data: bytearray, size: int, crc: int | None = None) -> None:
    """Makes the first member's local header and central directory entry declare ``size``
    bytes decompressed (and ``crc``)."""
    for signature, at_crc, at_size in ((b"PK\x03\x04", 14, 22), (b"PK\x01\x02", 16, 24)):
        start = data.index(signature)
        data[start + at_size : start + at_size + 4] = struct.pack("<I", size)
        if crc is not None:
            data[start + at_crc : start + at_crc + 4] = struct.pack("<I", crc)


def test_a_header_that_lies_about_the_size_stops_at_it() -> None:
    text = json.dumps(_config()).encode() + b" " * 50_000
    data = bytearray(_archive({"config.json": text}))
    _declare(data, 100)
    archive = read_archive(bytes(data), limit=1_000_000)
    assert (archive.config, archive.error) == (
        None,
        "config.json holds more than the 100 bytes its header declares (the archive is damaged "
        "or was altered)",
    )
    # With the CRC of its first 100 bytes, zipfile handed them over as the whole member; read
    # on, all of it (in one chunk here) fails the CRC.
    _declare(data, 100, zlib.crc32(text[:100]))
    assert read_archive(bytes(data), limit=1_000_000).error == (
        "config.json cannot be decompressed: Bad CRC-32 for file 'config.json'"
    )
    # Declaring more than it holds (CRC and all) is refused too.
    _declare(data, len(text) + 10, zlib.crc32(text))
    assert read_archive(bytes(data), limit=1_000_000).error == (
        f"config.json holds {len(text)} bytes, fewer than the {len(text) + 10} its header "
        "declares (the archive is damaged or was altered)"
    )
    # Under a limit below what it holds: refused as soon as the declared size is known.
    _declare(data, 2_000_000)
    assert read_archive(bytes(data), limit=1_000_000).error == (
        "config.json is 2000000 bytes decompressed, larger than the limit of 1000000 bytes "
        "(raise it with --max-file-size)"
    )


class _Counting:
    """A zlib decompressor that counts the bytes it hands out."""

    made: ClassVar[list[_Counting]] = []

    def __init__(self, *args: Any) -> None:
        self.inner = _DECOMPRESSOBJ(*args)
        self.out = 0
        _Counting.made.append(self)

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out = self.inner.decompress(data, max_length)
        self.out += len(out)
        return out

    def flush(self, *args: int) -> bytes:
        out = self.inner.flush(*args)
        self.out += len(out)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


_DECOMPRESSOBJ = zlib.decompressobj


@pytest.mark.parametrize("declared", [1_000, 900_000])
def test_a_lying_header_is_decompressed_no_further_than_a_chunk_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declared: int
) -> None:
    # 8 MB of config.json in a 10 KB archive whose headers declare less (under the 1 MB limit):
    # zipfile decompressed up to the limit in one call before cutting at the declared size.
    text = json.dumps(_config()).encode() + b" " * 8_000_000
    data = bytearray(_archive({"config.json": text}))
    _declare(data, declared)
    path = tmp_path / "liar.keras"
    path.write_bytes(bytes(data))
    monkeypatch.setattr(zlib, "decompressobj", _Counting)
    _Counting.made.clear()
    assert read_archive(bytes(data), limit=1_000_000).config is None
    assert members_of_file(str(path), 1_000_000) is None
    # One read of CHUNK may decompress up to zipfile's minimum read (4 KiB) more.
    assert [made.out <= declared + CHUNK + 4096 for made in _Counting.made] == [True, True]
    result = invoke("check", "--max-file-size", "1000000", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}: TE001 [error] not a readable .keras archive: config.json holds more than the "
        f"{declared} bytes its header declares (the archive is damaged or was altered)\n"
        "Found 1 error in 1 file (1 file checked).\n",
    )
    assert len(_Counting.made) >= 3
    assert max(made.out for made in _Counting.made) <= declared + CHUNK + 4096


def test_only_config_json_is_read_and_never_as_a_path(tmp_path: Path) -> None:
    config = json.dumps(_config()).encode()
    members = {
        "../config.json": b"not json",
        "/etc/config.json": b"not json",
        "config.json": config,
        "metadata.json": b'{"keras_version": "3.15.1"}',
        "model.weights.h5": b"weights",
    }
    data = bytearray(_archive(members, zipfile.ZIP_STORED))
    # Weights that cannot be decompressed: never touched.
    start = data.index(b"weights")
    data[start : start + 7] = b"\xff" * 7
    path = tmp_path / "m.keras"
    path.write_bytes(bytes(data))
    archive = read_archive(bytes(data))
    assert (archive.config, archive.keras_version, archive.error) == (config, "3.15.1", "")
    result = invoke("check", "--select", "TE762", str(path))
    assert f"{path}!config.json:1:7579: {CLIPNORM}" in result.stdout.splitlines()


def test_an_encrypted_config_is_refused(tmp_path: Path) -> None:
    data = bytearray(_archive({"config.json": b"{}"}, zipfile.ZIP_STORED))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature) + offset
        data[at] |= 0x1
    assert read_archive(bytes(data)).error == "config.json is encrypted"


def test_two_config_members_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("config.json", "{}")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr(zipfile.ZipInfo("config.json"), "{}")
    assert read_archive(buffer.getvalue()).error == "the archive holds config.json 2 times"


def test_a_truncated_archive_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "m.keras"
    path.write_bytes(SAMPLE.read_bytes()[:2000])
    result = invoke("check", str(path))
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout.startswith(
        f"{path}: TE001 [error] not a readable .keras archive: the zip archive cannot be read: "
    )


def test_an_archive_on_stdin_is_known_by_its_bytes() -> None:
    result = invoke("check", "--select", "TE762", "-", stdin=SAMPLE.read_bytes())
    assert f"<stdin>!config.json:1:7579: {CLIPNORM}" in result.stdout.splitlines()


def test_values_of_the_wrong_kind_are_findings_where_they_are(tmp_path: Path) -> None:
    config = json.dumps(_config())
    config = config.replace('"vocabulary_size": 1000', '"vocabulary_size": "lots"', 1)
    path = tmp_path / "config.json"
    path.write_text(config)
    result = invoke("check", "--select", "TE007", str(path))
    column = config.index('"vocabulary_size": "lots"') + 1
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}:1:{column}: TE007 [error] a table's `vocabulary_size` must be an integer\n"
        "Found 1 error in 1 file (1 file checked).\n",
    )


def test_keras_archives_are_read_not_written() -> None:
    result = invoke("convert", str(SAMPLE), "--to", "keras")
    assert result.exit_code == 2
    assert "'keras' is not one of 'text', 'json', 'binary', 'yaml'" in result.stderr


def test_the_backend_is_a_setting(tmp_path: Path) -> None:
    shutil.copy(SAMPLE, tmp_path / "m.keras")
    (tmp_path / ".tpuemb.toml").write_text('keras-backend = "tensorflow"\n')
    result = invoke("check", "--select", "TE762", str(tmp_path / "m.keras"))
    assert "Keras-RS's TensorFlow conversion refuses" in result.stdout
    result = invoke(
        "check", "--select", "TE762", "--keras-backend", "jax", str(tmp_path / "m.keras")
    )
    assert "Keras-RS's TensorFlow conversion" not in result.stdout
    (tmp_path / ".tpuemb.toml").write_text('keras-backend = "torch"\n')
    result = invoke("check", str(tmp_path / "m.keras"))
    assert (result.exit_code, result.stderr) == (
        2,
        f'tpuemb: error: {tmp_path / ".tpuemb.toml"}:1:1: `keras-backend`: must be "jax" or '
        '"tensorflow"\n',
    )


def test_a_model_larger_than_the_limit_is_read_for_its_configuration(tmp_path: Path) -> None:
    # A model's weights are most of its archive: only config.json (and metadata.json) are read
    # from the file, each within the limit.
    weights = random.Random(0).randbytes(1_100_000)  # bytes that do not compress
    members = {"config.json": json.dumps(_config()).encode(), "model.weights.h5": weights}
    path = tmp_path / "big.keras"
    path.write_bytes(_archive(members))
    assert path.stat().st_size > 1_000_000
    result = invoke("check", "--select", "TE762", "--max-file-size", "200000", str(path))
    assert f"{path}!config.json:1:7579: {CLIPNORM}" in result.stdout.splitlines()
    # What is no archive is read whole, and refused past the limit as any input is.
    path.write_bytes(b"x" * 300_000)
    result = invoke("check", "--max-file-size", "200000", str(path))
    assert (result.exit_code, result.stderr) == (
        2,
        f"tpuemb: error: {path}: file is 300000 bytes, larger than the limit of 200000 bytes "
        "(raise it with --max-file-size)\n",
    )


def test_the_tpu_gives_the_devices_and_their_sparsecores(tmp_path: Path) -> None:
    # v5p-8: 8 TensorCores, 4 chips, 4 devices of 4 SparseCores: 16 feature slices.
    config = json.dumps(_config()).replace("[32, 1]", "[40, 1]")
    path = tmp_path / "config.json"
    path.write_text(config)
    result = invoke("check", "--select", "TE691", "--tpu", "v5p-8", str(path))
    lines = result.stdout.splitlines()
    assert len(lines) == 5  # the four SparseCore features; `small` stays on the TensorCores
    assert "which 4 devices x 4 SparseCores (16 feature slices) do not divide" in lines[0]
    assert invoke("check", "--select", "TE691", str(path)).exit_code == 0  # no TPU: not known


def test_named_archives_that_hold_no_embedding_model(tmp_path: Path) -> None:
    empty, plain = tmp_path / "empty.keras", tmp_path / "plain.keras"
    empty.write_bytes(_archive({"readme.txt": b"x"}))
    model = {"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": []}}
    plain.write_bytes(_archive({"config.json": json.dumps(model).encode()}))
    result = invoke("check", str(empty), str(plain))
    assert (result.exit_code, result.stdout) == (
        1,
        f"{empty}: TE009 [error] not a TPU embedding document: the zip archive holds no "
        "config.json (a Keras model's has one)\n"
        f"{plain}: TE009 [error] not a TPU embedding document: a Keras model with no Keras-RS "
        "DistributedEmbedding layer\n"
        "Found 2 errors in 2 files (2 files checked).\n",
    )


def test_convert_shows_what_was_read() -> None:
    result = invoke("convert", str(DATA / "clean.keras"), "--to", "json")
    assert result.exit_code == 0
    read = json.loads(result.stdout)
    (layer,) = read["layers"]
    assert layer["path"] == "clean/distributed_embedding"
    assert [t["name"] for t in layer["tables"]] == ["users", "items", "tags"]
    assert [(f["key"], f.get("table", 0)) for f in layer["features"]] == [
        ("friend", 0),
        ("item", 1),
        ("tag", 2),
        ("user", 0),
    ]
    assert layer["tables"][2]["optimizer"] == {"className": "sgd", "byName": True}


def test_feature_configs_nested_past_the_limit_are_a_syntax_finding(tmp_path: Path) -> None:
    # As deep as any document may nest (202 JSON levels), not as deep as json.loads reads: the
    # feature 150 levels down is read, one 900 down is a syntax finding at its 203rd bracket.
    config = _config()
    text = json.dumps(config)
    for depth, found in ((150, "feature 'x' of layer"), (900, "TE001 [error] the JSON nests")):
        deep = '{"a": ' * depth + '{"name": "x", "table": 0, "output_shape": [32, 3]}' + "}" * depth
        deep_text = text.replace(
            '"feature_configs": {', f'"feature_configs": {{"deep": {deep}, ', 1
        )
        path = tmp_path / "config.json"
        path.write_text(deep_text)
        result = invoke("check", "--select", "TE001", "--select", "TE761", str(path))
        assert result.exit_code == 1
        assert found in result.stdout


def test_configuration_names_the_archive(tmp_path: Path) -> None:
    # Findings name the member (`m.keras!config.json`); configuration names files on disk.
    shutil.copy(SAMPLE, tmp_path / "m.keras")
    (tmp_path / ".tpuemb.toml").write_text("")
    result = invoke("check", "--add-suppressions", str(tmp_path / "m.keras"))
    assert (result.exit_code, result.stderr) == (
        0,
        f"tpuemb: {tmp_path / '.tpuemb.toml'}: added 8 suppressions\n",
    )
    assert 'file = "m.keras"\n' in (tmp_path / ".tpuemb.toml").read_text()
    result = invoke("check", str(tmp_path / "m.keras"))
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")
    (tmp_path / ".tpuemb.toml").write_text('per-file-ignores = { "*.keras" = ["TE76"] }\n')
    result = invoke("check", str(tmp_path / "m.keras"))
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_dimensions_out_of_range_are_findings(tmp_path: Path) -> None:
    config = json.dumps(_config()).replace(
        '"output_shape": [32, 8]', '"output_shape": [-5, 2e3]', 1
    )
    config = config.replace('"input_shape": [32, 1]', f'"input_shape": [{2**70}, 1]', 1)
    path = tmp_path / "config.json"
    path.write_text(config)
    result = invoke("check", "--select", "TE007", str(path))
    assert result.exit_code == 1
    assert [line.split(": ", 1)[1] for line in result.stdout.splitlines()[:-1]] == [
        "TE007 [error] feature 'user''s `input_shape` must be a list of dimensions (integers "
        "from 0 below 2**31, or null)",
        "TE007 [error] feature 'user''s `output_shape` must be a list of dimensions (integers "
        "from 0 below 2**31, or null)",
    ]


def test_table_integers_the_libraries_cannot_hold(tmp_path: Path) -> None:
    config = json.dumps(_config()).replace('"embedding_dim": 16', f'"embedding_dim": {2**31}', 1)
    path = tmp_path / "config.json"
    path.write_text(config)
    result = invoke("check", str(path))
    assert result.exit_code == 1
    column = config.index(f'"embedding_dim": {2**31}') + 1
    assert (
        f"{path}:1:{column}: TE005 [error] a table's `embedding_dim` of 2147483648 is more than "
        "the libraries' 32-bit fields hold"
    ) in result.stdout.splitlines()
    assert "TE010" not in result.stdout


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"name": "users"', '"name": "us\\ud800ers"'),  # a table's name
        ('"name": "user"', '"name": "us\\udc00er"'),  # a feature's name (and its key below)
        ('"combiner": "mean"', '"combiner": "me\\ud800an"'),
        ('"name": "distributed_embedding_1"', '"name": "de\\udc00"'),  # the layer's name
    ],
)
def test_a_lone_surrogate_in_a_name_is_a_finding_where_it_is_written(
    tmp_path: Path, old: str, new: str
) -> None:
    # JSON's "\ud800" is no character; setting it in a protobuf string raised, and check,
    # explain and diff said "internal error" (TE010).
    text = json.dumps(_config())
    assert old in text
    path = tmp_path / "m.keras"
    path.write_bytes(_archive({"config.json": text.replace(old, new).encode()}))
    for command in (["check", "--format", "concise"], ["explain", "--tpu", "v5p-8"]):
        result = invoke(*command, str(path))
        assert "internal error" not in result.output, result.output[-800:]
    result = invoke("check", "--format", "concise", "--select", "TE007", str(path))
    assert result.exit_code == 1
    assert "TE007 [error] the string holds a lone surrogate (\\u" in result.stdout
