"""Discovery's verdicts on files a repository holds that look like documents by a word or two."""

from __future__ import annotations

from tpuemb_cli.load.recognise import Verdict, recognise

# A dev container (JSONC): comments, a trailing comma, `//` and `/*` inside strings, and a
# `features` object -- a spec's signature field by name only.
DEVCONTAINER = b"""\
// For format details, see https://aka.ms/devcontainer.json.
{
  "name": "ranker /* dev */",
  "image": "mcr.microsoft.com/devcontainers/python:1-3.11",
  /* Features to add. More info: https://containers.dev/features. */
  "features": {"ghcr.io/devcontainers/features/node:1": {}},
  // "tables": [],
  "postCreateCommand": "pip install -r requirements.txt",
}
"""


def test_jsonc_is_judged_by_its_top_level_keys() -> None:
    assert recognise(".devcontainer.json", DEVCONTAINER, "json") == Verdict(
        False, reason="its top-level fields are `name`, `image`, `features`, `postCreateCommand`"
    )


def test_a_config_with_a_comment_is_still_a_document() -> None:
    # Protobuf's JSON parser refuses the comment: the document is linted, and that reported.
    data = b'{\n  // the ranker\n  "tableDescriptor": [{"name": "item"}],\n}\n'
    assert recognise("c.json", data, "json") == Verdict(
        True, message_type="TPUEmbeddingConfiguration"
    )


def test_broken_json_naming_a_signature_field_is_still_a_document() -> None:
    assert recognise("c.json", b'{"tableDescriptor": [{"name": ', "json") == Verdict(True)


PARAMS = b"""\
train:
  epochs: 10
features:
  - item_ids
  - user_id
optimizer:
  name: adagrad
  learning_rate: 0.05
"""


def test_yaml_with_a_specs_keys_holding_other_things_is_not_a_spec() -> None:
    # A training script's params.yaml: `features` is a list of names, not of spec features.
    assert recognise("params.yaml", PARAMS, "yaml") == Verdict(
        False,
        reason="its top-level fields are `train`, `features`, `optimizer`, holding other things",
    )
    flags = b"features:\n  dark_mode: true\n  new_checkout: false\n"
    assert recognise("flags.yml", flags, "yaml") == Verdict(
        False, reason="its top-level fields are `features`, holding other things"
    )


SPEC = b"""\
tables:
  - {name: video, vocabulary_size: 1000, dim: 16}
features:
  - {name: watched, table: video}
"""


def test_specs_are_still_specs() -> None:
    spec = SPEC
    assert recognise("s.yaml", spec, "yaml") == Verdict(True, message_type="EmbeddingSpec")
    # A tag safe loading refuses: the loader reports it, so the file is linted.
    tagged = spec + b"topology: !!python/name:os.system\n"
    assert recognise("s.yaml", tagged, "yaml") == Verdict(True, message_type="EmbeddingSpec")


def test_a_spec_being_written_is_a_spec() -> None:
    # `features:` with nothing under it yet: the linter, not discovery, says what is missing.
    spec = b"tables:\n  - {name: video, vocabulary_size: 1000, dim: 16}\nfeatures:\n"
    assert recognise("s.yaml", spec, "yaml") == Verdict(True, message_type="EmbeddingSpec")
