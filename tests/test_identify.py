"""The identification step as a table: (name, bytes, hint, walked) -> the verdict, one row for
every case of ``load.identify``'s precedence; the loader then loads what the verdict says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpuemb_cli.load import Document, Skipped, load_input
from tpuemb_cli.load.identify import (
    AS_YAML,
    CONTENT,
    HINT,
    NAMED_EMPTY,
    NOT_A_DOCUMENT,
    Identity,
    headed,
    identify,
    name_says,
)

ROOT = Path(__file__).resolve().parent.parent


def _file(path: str) -> bytes:
    return (ROOT / path).read_bytes()


CONFIG_TEXT = _file("examples/ranking_model.pbtxt")
CONFIG_BINARY = _file("examples/ranking_model.pb")
CONFIG_JSON = _file("examples/ranking_model.json")
SPEC_YAML = _file("examples/recommender.spec.yaml")
CONFIG = "TPUEmbeddingConfiguration"
SPEC = "EmbeddingSpec"
JAX = "EmbeddingSpecProto"
NPM = "its top-level fields are `name`, `version`"
BINARY_TYPES = (
    "it parses as no TPUEmbeddingConfiguration, GraphDef, OptimizationParameters, "
    "SparseCoreTableLayouts or EmbeddingSpecProto without unknown fields"
)

# (name, bytes, hint, walked) -> (outcome, encoding read, encoding named, type, step, reason);
# reason None: not compared (a document's is for debugging).
ROWS: list[tuple[str, bytes, str | None, bool, tuple[str, str, str, str | None, str, str | None]]]
ROWS = [
    # Text format by name and content; the config type is the codec's default (None).
    ("c.pbtxt", b"table_descriptor {\n  name: 't'\n}\n", None, False,
     ("load", "text", "text", None, CONTENT, "it holds text")),
    # No field: named as a document (its extension, or blank) it is an empty one
    # (_named_as_one); walked, or named without a name that says so, it is none.
    ("c.pbtxt", b"", None, False, ("load", "text", "text", None, NAMED_EMPTY, None)),
    ("c.pbtxt", b"# only a comment\n", None, False,
     ("load", "text", "text", None, NAMED_EMPTY, None)),
    ("<stdin>", b"  \n", None, False, ("load", "text", "text", None, NAMED_EMPTY, None)),
    ("c.pbtxt", b"", None, True,
     ("skip", "text", "text", None, NOT_A_DOCUMENT, "it has no fields")),
    ("LICENSE", b"MIT License\n", None, False,
     ("refuse", "text", "text", None, NOT_A_DOCUMENT, "it has no fields")),
    # Misnamed (_misnamed): text under a binary name, binary under a text name.
    ("c.pb", CONFIG_TEXT, None, False,
     ("load", "text", "binary", CONFIG, CONTENT, "it holds text, not binary as its name says")),
    ("c.pbtxt", CONFIG_BINARY, None, False,
     ("load", "binary", "text", None, CONTENT, "it holds binary, not text as its name says")),
    # Binary protobuf, JSON and YAML by name; without a name, by the codecs' sniffs.
    ("ranking_model.pb", CONFIG_BINARY, None, False,
     ("load", "binary", "binary", None, CONTENT, None)),
    ("<stdin>", CONFIG_BINARY, None, False, ("load", "binary", "binary", None, CONTENT, None)),
    ("ranking_model.json", CONFIG_JSON, None, False,
     ("load", "json", "json", CONFIG, CONTENT, None)),
    ("<stdin>", CONFIG_JSON, None, False, ("load", "json", "json", CONFIG, CONTENT, None)),
    ("<stdin>", CONFIG_TEXT, None, False, ("load", "text", "text", CONFIG, CONTENT, None)),
    ("spec.yaml", SPEC_YAML, None, False, ("load", "yaml", "yaml", SPEC, CONTENT, None)),
    ("spec.yml", SPEC_YAML, None, True, ("load", "yaml", "yaml", SPEC, CONTENT, None)),
    # No name to go by: a YAML spec reads as broken text format, and as YAML it is a spec
    # (the retry after the text verdict: what reads as text stays text, the row above).
    ("<stdin>", SPEC_YAML, None, False, ("load", "yaml", "yaml", SPEC, AS_YAML, None)),
    # Other projects' JSON and YAML: refused when named, skipped when walked.
    ("package.json", b'{"name": "x", "version": "1.0.0"}\n', None, False,
     ("refuse", "json", "json", None, NOT_A_DOCUMENT, NPM)),
    ("package.json", b'{"name": "x", "version": "1.0.0"}\n', None, True,
     ("skip", "json", "json", None, NOT_A_DOCUMENT, NPM)),
    ("compose.yaml", b"services:\n  web:\n    image: nginx\n", None, True,
     ("skip", "yaml", "yaml", None, NOT_A_DOCUMENT, "its top-level fields are `services`")),
    # A .keras archive: by name, and without one by its zip's bytes (before binary's sniff).
    ("ranking.keras", _file("examples/keras/ranking.keras"), None, False,
     ("load", "keras", "keras", "KerasModel", CONTENT, None)),
    ("<stdin>", _file("examples/keras/ranking.keras"), None, False,
     ("load", "keras", "keras", "KerasModel", CONTENT, None)),
    # A checkpoint's index: binary by its bytes, and no type tpuemb reads.
    ("ckpt-1.index", _file("tests/data/real-repo/tree/ckpt/ckpt-1.index"), None, False,
     ("refuse", "binary", "binary", None, NOT_A_DOCUMENT, BINARY_TYPES)),
    ("ckpt-1.index", _file("tests/data/real-repo/tree/ckpt/ckpt-1.index"), None, True,
     ("skip", "binary", "binary", None, NOT_A_DOCUMENT, BINARY_TYPES)),
    # SavedModel binaries: saved_model.pb by its name (the codec's sniff), the others never.
    ("saved_model.pb", _file("tests/data/real-repo/tree/models/ranker/1/saved_model.pb"), None,
     False, ("load", "binary", "binary", None, CONTENT, None)),
    ("fingerprint.pb", _file("tests/data/real-repo/tree/models/ranker/1/fingerprint.pb"), None,
     False, ("refuse", "binary", "binary", None, NOT_A_DOCUMENT, "a SavedModel fingerprint")),
    ("keras_metadata.pb",
     _file("tests/data/real-repo/tree/models/text_regression/01/keras_metadata.pb"), None, True,
     ("skip", "binary", "binary", None, NOT_A_DOCUMENT, "Keras metadata of a SavedModel")),
    # GraphDefs: binary by their bytes, text by their nodes (other graphs' nodes are not).
    ("frozen_graph.pb", _file("tests/data/tf-made/ranker/frozen_graph.pb"), None, False,
     ("load", "binary", "binary", "GraphDef", CONTENT, None)),
    ("g.pbtxt", b"node {\n  name: 'a'\n  op: 'Const'\n}\n", None, False,
     ("load", "text", "text", "GraphDef", CONTENT, None)),
    ("g.pbtxt", b"node {\n  id: 1\n}\n", None, False,
     ("refuse", "text", "text", None, NOT_A_DOCUMENT,
      "its `node`s are not TensorFlow graph nodes (no `op`)")),
    # A JAX EmbeddingSpecProto in each encoding.
    ("stacked.binpb", _file("tests/data/jax/stacked.binpb"), None, False,
     ("load", "binary", "binary", JAX, CONTENT, None)),
    ("stacked.pbtxt", _file("tests/data/jax/stacked.pbtxt"), None, False,
     ("load", "text", "text", JAX, CONTENT, None)),
    ("stacked.json", _file("tests/data/jax/stacked.json"), None, False,
     ("load", "json", "json", JAX, CONTENT, None)),
    # A `# proto-message:` header names the type (a .txt is text by its sniff), or no type.
    ("layout.txt", b"# proto-message: tensorflow.tpu.SparseCoreTableLayouts\n"
     b"tables {\n  table_name: 't'\n}\n", None, False,
     ("load", "text", "text", "SparseCoreTableLayouts", CONTENT, None)),
    ("c.pbtxt", b"# proto-message: Nonsense\nx: 1\n", None, False,
     ("refuse", "text", "text", None, NOT_A_DOCUMENT,
      "its `# proto-message:` header names Nonsense")),
    # --type: the type is the user's, whether it is a document is not asked; the encoding is
    # still the content's (misnamed either way), and without a name a spec that reads as
    # YAML is YAML (_reads_as_yaml) -- unless a header is all YAML knew it by and text reads it.
    ("LICENSE", b"MIT License\n", CONFIG, False,
     ("load", "text", "text", CONFIG, HINT, "--type TPUEmbeddingConfiguration")),
    ("c.pb", CONFIG_TEXT, CONFIG, False, ("load", "text", "binary", CONFIG, HINT, None)),
    ("c.pbtxt", CONFIG_BINARY, CONFIG, False, ("load", "binary", "text", CONFIG, HINT, None)),
    ("<stdin>", SPEC_YAML, SPEC, False, ("load", "yaml", "yaml", SPEC, HINT, None)),
    ("<stdin>", b"# proto-message: EmbeddingSpec\nfeatures {\n  name: 'f'\n}\n", SPEC, False,
     ("load", "text", "text", SPEC, HINT, None)),
    ("<stdin>", b"# proto-message: EmbeddingSpec\nfeatures:\n  - name: f\n", SPEC, False,
     ("load", "yaml", "yaml", SPEC, HINT, None)),
]  # fmt: skip


def _id(row: tuple[str, bytes, str | None, bool, object]) -> str:
    name, _, hint, walked, _ = row
    return f"{name}{f' --type {hint}' if hint else ''}{' walked' if walked else ''}"


@pytest.mark.parametrize("row", ROWS, ids=[_id(row) for row in ROWS])
def test_the_verdict(row: tuple[str, bytes, str | None, bool, tuple[object, ...]]) -> None:
    name, data, hint, walked, expected = row
    identity = identify(data, name, hint, walked)
    *verdict, reason = expected
    assert tuple(identity)[:5] == tuple(verdict)
    if reason is not None:
        assert identity.reason == reason
    assert identity.misnamed == (identity.encoding != identity.named)


@pytest.mark.parametrize("row", ROWS, ids=[_id(row) for row in ROWS])
def test_the_loader_loads_what_the_verdict_says(
    row: tuple[str, bytes, str | None, bool, object],
) -> None:
    name, data, hint, walked, _ = row
    identity = identify(data, name, hint, walked)
    loaded = load_input(data, name, hint, walked)
    if identity.outcome == "skip":
        assert loaded == Skipped(name, identity.reason)
        return
    assert isinstance(loaded, Document)
    codes = [problem.rule for problem in loaded.problems]
    if identity.outcome == "refuse":
        assert codes == ["not-an-embedding-document"]
        assert loaded.format == identity.named
        return
    assert loaded.format == identity.encoding
    if identity.message_type is not None:
        assert loaded.message_type == identity.message_type
    assert ("misnamed-file" in codes) == identity.misnamed


def _verdict(identity: Identity) -> tuple[str, str]:
    return identity.outcome, identity.step


def test_walked_and_named_differ_only_for_what_is_no_document() -> None:
    # `check` skips in a walk what it refuses when named; a document is one either way.
    for name, data, hint, _, _ in ROWS:
        walked, named = identify(data, name, hint, True), identify(data, name, hint, False)
        if named.outcome == "refuse":
            assert _verdict(walked) == ("skip", NOT_A_DOCUMENT)
            assert walked.reason == named.reason
        elif named.step != NAMED_EMPTY:
            assert walked == named


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("c.pbtxt", "ours"),
        ("dir.d/C.PB", "ours"),
        ("model.keras", "ours"),
        ("spec.yml", "ours"),
        ("layout.txt", "headed"),  # a walk reads its start: `headed`
        ("LICENSE", "silent"),  # named, its content decides; a walk skips it
        ("ckpt-1.index", "foreign"),  # skipped by its name, named or walked
        ("NOTES.md", "foreign"),
        (".pbtxt", "silent"),  # a hidden file's name is all stem
    ],
)
def test_what_a_name_alone_says(name: str, says: str) -> None:
    assert name_says(name) == says


def test_a_txt_is_ours_under_a_header_naming_a_type() -> None:
    assert headed(b"# proto-message: EmbeddingSpecProto\n")
    assert not headed(b"# proto-message: Nonsense\n")
    assert not headed(b"requests==2.0\n")
