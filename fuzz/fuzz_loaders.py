"""Coverage-guided fuzzing of the loaders and the engine with atheris (`make fuzz`).

    python fuzz/fuzz_loaders.py FORMAT [libFuzzer options]
    # FORMAT: text, json, yaml, binary, keras; or yaml-aliases, json-hostile, keras-layers

Each input is loaded as FORMAT and linted; anything but a clean return is a crash. Text input is
also checked differentially: parsed a line at a time (as the parser reads a large file, in
chunks) it must give what it gives whole, and its findings must be placed where a parse that
records every field's position places them (tpuemb finds positions by a second, partial
parse). libFuzzer writes a crashing input as crash-<hash> in the working folder; keep it in
fuzz/regressions/ -- tests/test_fuzz_regressions.py replays every file there.

yaml-aliases, json-hostile and keras-layers do not load the bytes: they are the randomness that
tests/test_hostile_inputs.py's and tests/test_keras_hostile.py's generators build documents from
(nested anchors, aliases, merges and self references; strings with lone surrogates and numbers
of thousands of digits; Keras-RS layers of hostile values), with their properties: no
exception, a bounded time (and memory: run with -rss_limit_mb), and each refusal found where the
model of the document says, at its line and column. A crash there is a failing example of that
test: hypothesis prints it (and replays it from its database).
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    # What loads lazily is imported here too, so that it is instrumented: the codecs, their
    # parsers, PyYAML's pure-Python reader, and every rule.
    import yaml  # noqa: F401

    import tpuemb_cli.frontends.keras.load.codec
    import tpuemb_cli.frontends.keras.load.config
    import tpuemb_cli.load.encodings.binary
    import tpuemb_cli.load.encodings.json
    import tpuemb_cli.load.encodings.text
    import tpuemb_cli.load.encodings.yaml
    import tpuemb_cli.load.recognise  # noqa: F401
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import load_bytes, text_parser, text_tokenizer
    from tpuemb_cli.load.source import SourceMap
    from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
    from tpuemb_cli.rules import all_rules

    all_rules()

ENGINE = Engine()
NAMES = {
    "text": "f.pbtxt",
    "json": "f.json",
    "yaml": "f.yaml",
    "binary": "f.pb",
    "keras": "f.keras",
}
# Structured targets: a property test of tests/test_hostile_inputs.py, driven by the fuzzer.
PROPERTIES = {
    "yaml-aliases": (
        "test_hostile_inputs",
        "test_yaml_aliases_are_bounded_and_refused_at_the_alias",
    ),
    "json-hostile": (
        "test_hostile_inputs",
        "test_json_surrogates_and_huge_numbers_are_findings_at_their_place",
    ),
    "keras-layers": ("test_keras_hostile", "test_a_layer_of_hostile_values_is_read_and_linted"),
}


def _parse(text: str) -> tuple[object, ...]:
    message = TPUEmbeddingConfiguration()
    parsed = text_parser.parse_text(text, message)
    problems = [(p.rule, p.message, p.path, p.span) for p in parsed.problems]
    return message.SerializeToString(deterministic=True), parsed.spans, problems, parsed.comments


def _same_in_chunks(text: str) -> None:
    whole = _parse(text)
    chunk, text_tokenizer._CHUNK = text_tokenizer._CHUNK, 1
    try:
        chunked = _parse(text)
    finally:
        text_tokenizer._CHUNK = chunk
    assert chunked == whole, (chunked, whole)


def _property(fmt: str) -> object:
    """The hypothesis test for ``fmt``, as a function of the fuzzer's bytes."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import importlib

    module, test = PROPERTIES[fmt]
    return getattr(importlib.import_module(f"tests.{module}"), test).hypothesis.fuzz_one_input


def main() -> None:
    fmt = sys.argv.pop(1)
    if fmt in PROPERTIES:
        # The generators draw a few bytes per choice: let inputs be long from the start.
        if not any(arg.startswith("-max_len=") for arg in sys.argv):
            sys.argv += ["-max_len=4096", "-len_control=0"]
        atheris.Setup(sys.argv, _property(fmt))
        atheris.Fuzz()
        return
    name = NAMES[fmt]

    def one_input(data: bytes) -> None:
        document = load_bytes(data, name, fmt)
        findings = ENGINE.lint(document)
        if fmt == "text":
            _same_in_chunks(data.decode("utf-8", errors="replace"))
            if document.text is not None and document.message is not None:
                every = text_parser.parse_text(document.text, type(document.message)()).spans
                full = document._replace(source_map=SourceMap(document.text, every))
                again = ENGINE.lint(full)
                assert again == findings, (again, findings)

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
