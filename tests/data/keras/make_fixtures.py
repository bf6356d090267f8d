"""Writes the `.keras` fixtures of tests/data/keras/: models saved by Keras-RS itself, and a
hostile set for the bounded archive reader.

Run from the repository root inside the Keras oracle's environment (`make test-keras` builds it):

    KERAS_BACKEND=jax build/venv-keras/bin/python -m tests.data.keras.make_fixtures

Saved by keras-rs (0.4.0, keras 3.15.1, jax on CPU), one per case of
tests/keras_layers.FIXTURES: clean.keras, nested.keras (the layer in a Sequential inside a
Functional), output_shape_mismatch.keras ((32, 8) on a dimension-16 table), clipnorm_momentum.keras
(SGD momentum + clipnorm, Adam amsgrad, RMSprop), two_layers.keras, explicit_stacking.keras
(placement "sparsecore" and table_stacking [["users", "items"]], built through Keras-RS's SparseCore
path with a simulated SparseCore: a CPU layer's config leaves table_stacking out),
tf_compatible.keras (what Keras-RS's TensorFlow conversion also accepts). Vocabularies are tiny, so
the weights are a few kilobytes.

Hostile, under hostile/ (written by hand, no Keras needed: `--hostile-only`):
- bomb_lying_size.keras: config.json's headers declare 200 bytes; it inflates to 300 MiB;
- bomb_large.keras: config.json honestly declares 300 MiB (over the default --max-file-size);
- path_traversal.keras: a valid model plus a member named ../../outside.json;
- symlink.keras: config.json is a symbolic link member (to /etc/passwd);
- not_a_zip.keras: text;
- no_config.keras: a zip with metadata.json and no config.json;
- bad_json.keras: config.json that is not JSON;
- config_not_object.keras: config.json that is JSON but a list.
"""

from __future__ import annotations

import argparse
import json
import stat
import struct
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).parent
HOSTILE = HERE / "hostile"
MIB = 1024 * 1024
BOMB_SIZE = 300 * MIB
LYING_SIZE = 200

MINIMAL_CONFIG = {
    "module": "keras.src.models.functional",
    "class_name": "Functional",
    "config": {"name": "model", "layers": [], "input_layers": [], "output_layers": []},
}
METADATA = {"keras_version": "3.15.1", "date_saved": "2026-11-26@00:00:00"}


def _bomb_payload() -> bytes:
    """Raw deflate of a JSON object whose one string is BOMB_SIZE spaces (about 300 KB)."""
    head = b'{"class_name": "Functional", "config": {"name": "'
    tail = b'"}}'
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts = [compressor.compress(head)]
    chunk = b" " * MIB
    for _ in range((BOMB_SIZE - len(head) - len(tail)) // MIB):
        parts.append(compressor.compress(chunk))
    parts.append(compressor.compress(tail))
    parts.append(compressor.flush())
    return b"".join(parts)


def _zip_one(name: str, deflated: bytes, crc: int, declared: int) -> bytes:
    """A one-member zip archive holding ``deflated`` with headers that declare ``declared``
    uncompressed bytes."""
    encoded = name.encode()
    local = (
        struct.pack(
            "<IHHHHHIIIHH",
            0x04034B50,
            20,
            0,
            zipfile.ZIP_DEFLATED,
            0,
            0x21,
            crc,
            len(deflated),
            declared,
            len(encoded),
            0,
        )
        + encoded
    )
    central = (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            zipfile.ZIP_DEFLATED,
            0,
            0x21,
            crc,
            len(deflated),
            declared,
            len(encoded),
            0,
            0,
            0,
            0,
            0o100644 << 16,
            0,
        )
        + encoded
    )
    offset = len(local) + len(deflated)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), offset, 0)
    return local + deflated + central + end


def _archive(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def write_hostile() -> None:
    HOSTILE.mkdir(exist_ok=True)
    payload = _bomb_payload()
    # The CRC of what the headers claim would be unknowable to a reader that stops at the cap;
    # the real one is written, so only the size lies.
    crc = 0
    decompressor = zlib.decompressobj(-15)
    data = decompressor.decompress(payload, MIB)
    while data:
        crc = zlib.crc32(data, crc)
        data = decompressor.decompress(decompressor.unconsumed_tail, MIB)
    (HOSTILE / "bomb_lying_size.keras").write_bytes(
        _zip_one("config.json", payload, crc, LYING_SIZE)
    )
    (HOSTILE / "bomb_large.keras").write_bytes(_zip_one("config.json", payload, crc, BOMB_SIZE))
    good = json.dumps(MINIMAL_CONFIG).encode()
    metadata = json.dumps(METADATA).encode()
    _archive(
        HOSTILE / "path_traversal.keras",
        {"metadata.json": metadata, "config.json": good, "../../outside.json": b"{}"},
    )
    with zipfile.ZipFile(HOSTILE / "symlink.keras", "w") as archive:
        archive.writestr("metadata.json", metadata)
        link = zipfile.ZipInfo("config.json")
        link.create_system = 3  # Unix: the mode bits below are read
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    (HOSTILE / "not_a_zip.keras").write_text("this is not a zip archive\n")
    _archive(HOSTILE / "no_config.keras", {"metadata.json": metadata})
    _archive(
        HOSTILE / "bad_json.keras", {"metadata.json": metadata, "config.json": b'{"class_name": '}
    )
    _archive(
        HOSTILE / "config_not_object.keras", {"metadata.json": metadata, "config.json": b"[1, 2]"}
    )


def write_saved() -> None:
    from tests import keras_probe
    from tests.keras_layers import FIXTURES

    for case in FIXTURES:
        keras_probe.save(case, HERE / f"{case['name']}.keras")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hostile-only", action="store_true", help="write only hostile/")
    options = parser.parse_args()
    write_hostile()
    if not options.hostile_only:
        write_saved()


if __name__ == "__main__":
    main()
