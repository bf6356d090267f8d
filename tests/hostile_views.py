"""Documents of every kind whose every name field holds control characters, under file names that
hold them too (issue 36, point 11): what tests/test_views_escape.py drives every human view
with."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from tests.helpers import CLEAN

ROOT = Path(__file__).resolve().parent.parent
# A newline that would start a forged line, a carriage return and a tab, an ANSI colour
# sequence, a right-to-left override, a C1 control (NEL), a line separator, DEL and NUL.
HOSTILE = "\nFORGED\r\t\x1b[31m\u202e\x85\u2028\x7f\x00"
# A file name holds no NUL.
HOSTILE_FILE = HOSTILE.replace("\x00", "")
# Each as the formats write it in a string: text format and YAML both read these escapes.
_ESCAPED = "\\nFORGED\\r\\t\\x1b[31m\\u202e\\u0085\\u2028\\x7f\\x00"
_YAML = "\\nFORGED\\r\\t\\x1b[31m\\u202e\\x85\\u2028\\x7f\\0"
# What must never reach human output raw.
RAW = ("\nFORGED", "\r", "\t", "\x1b", "\u202e", "\x85", "\u2028", "\x7f", "\x00")


def leaked(output: str) -> list[str]:
    """The raw characters of ``HOSTILE`` that ``output`` holds."""
    return [repr(raw) for raw in RAW if raw in output]


def _pbtxt(text: str, fields: str) -> str:
    return re.sub(rf'\b({fields}): "([^"]*)"', lambda m: f'{m[1]}: "{m[2]}{_ESCAPED}"', text)


def _yaml(text: str) -> str:
    return re.sub(r"\b(name|table|schedule): (\w+)", lambda m: f'{m[1]}: "{m[2]}{_YAML}"', text)


CONFIG = _pbtxt(
    CLEAN.replace("mode:", CLEAN[: CLEAN.index("mode:")].replace("video", "clip") + "mode:")
    + 'feature_descriptor { name: "seen" table_id: 1 input_shape: 16 }\n',
    "name",
)


def _keras(source: Path, change: bool) -> bytes:
    names = {
        *("users", "items", "tags", "friend", "item", "user", "tag", "distributed_embedding"),
        *("genre", "genres", "small", "tower", "distributed_embedding_1", "outer_user"),
        *("outer_item", "outer_genre", "outer_small", "outer_tag"),
    }

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            found = {key: walk(item) for key, item in value.items()}
            if change and value.get("name") == "users" and "vocabulary_size" in value:
                found["vocabulary_size"] = 2000
            return found
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, str) and value in names:
            return value + HOSTILE
        return value

    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["config.json"] = json.dumps(walk(json.loads(members["config.json"]))).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


class Kind(NamedTuple):
    old: bytes
    new: bytes  # old with one table's size changed: a diff names it
    broken: bytes  # old with findings that quote names
    extension: str


def documents() -> dict[str, Kind]:
    """Each kind of document tpuemb reads, every name in it hostile."""
    spec = _yaml((ROOT / "examples" / "recommender.spec.yaml").read_text())
    sparsecore = _yaml((ROOT / "examples" / "sparsecore" / "dlrm.spec.yaml").read_text())
    jax_fields = "stack_name|table_name|feature_name"
    jax = _pbtxt((ROOT / "examples" / "jax" / "recommender.stacked.pbtxt").read_text(), jax_fields)
    jax_next = (
        ROOT / "examples" / "jax" / "changes" / "recommender.next.stacked.pbtxt"
    ).read_text()
    keras_core = ROOT / "tests" / "data" / "keras-core"
    return {
        # Two tables of one name (TE402).
        "config": Kind(
            CONFIG.encode(),
            CONFIG.replace("dimension: 16", "dimension: 32", 1).encode(),
            CONFIG.replace('"clip', '"video', 1).encode(),
            ".pbtxt",
        ),
        # A table no feature uses (TE704), a feature of a table not defined (TE703).
        "spec": Kind(
            spec.encode(),
            spec.replace("dim: 64", "dim: 128", 1).encode(),
            spec.replace('table: "user_id', 'table: "user_missing', 1).encode(),
            ".spec.yaml",
        ),
        "sparsecore": Kind(
            sparsecore.encode(),
            sparsecore.replace("dim: 128", "dim: 64", 1).encode(),
            sparsecore.replace('table: "cat_0', 'table: "cat_missing', 1).encode(),
            ".spec.yaml",
        ),
        # Two tables of one name in a stack (TE697).
        "jax": Kind(
            jax.encode(),
            _pbtxt(jax_next, jax_fields).encode(),
            jax.replace('table_name: "item', 'table_name: "user', 1).encode(),
            ".pbtxt",
        ),
        # keras-core/mistakes.keras: shapes, optimizers, placements (TE761, TE762, ...).
        "keras": Kind(
            _keras(keras_core / "clean.keras", False),
            _keras(keras_core / "clean.keras", True),
            _keras(keras_core / "mistakes.keras", False),
            ".keras",
        ),
    }


class Files(NamedTuple):
    old: Path
    new: Path
    broken: Path


def write(folder: Path) -> dict[str, Files]:
    """Each kind's files in ``folder``, under hostile names."""
    written = {}
    for kind, document in documents().items():
        files = Files(
            *(
                folder / f"{kind}{HOSTILE_FILE}{part}{document.extension}"
                for part in ("", ".next", ".broken")
            )
        )
        for path, data in zip(files, document[:3], strict=True):
            path.write_bytes(data)
        written[kind] = files
    return written
