"""The rule catalog: stable codes, kebab-case names, documentation users can read, tests for all."""

from __future__ import annotations

import ast
import importlib
import itertools
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

import tpuemb_cli.rules
from tpuemb_cli.engine import Engine
from tpuemb_cli.frontends import front_ends
from tpuemb_cli.model.pbcompat import is_map_entry, is_repeated
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.rules import CATALOG, all_rules, find, load
from tpuemb_cli.rules.base import STANDALONE, Rule, Site

RULES = all_rules()

SECTIONS = [
    "## What it does",
    "## Why is this bad?",
    "## What TensorFlow does",
    "## Example",
    "## Use instead",
    "## Fix safety",
    "## Options",
    "## References",
]


def test_codes_and_names_are_unique_and_well_formed() -> None:
    codes = [rule.code for rule in RULES]
    names = [rule.name for rule in RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    for rule in RULES:
        assert re.fullmatch(r"TE\d{3}", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.module.rsplit(".", 1)[1] == rule.name.replace("-", "_")


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_documentation_has_every_section_in_order(rule: Rule) -> None:
    doc = rule.doc
    if rule.module.startswith("tpuemb_cli.frontends.jax.rules."):
        # A JAX rule says what the JAX library does instead.
        doc = doc.replace("## What jax-tpu-embedding does", "## What TensorFlow does")
    if rule.module.startswith("tpuemb_cli.rules.stats."):
        # A statistics rule says what the library whose statistics they are does.
        doc = doc.replace("## What the library does", "## What TensorFlow does")
    if rule.module.startswith("tpuemb_cli.frontends.keras.rules."):
        # A Keras rule says what Keras-RS does instead.
        doc = doc.replace("## What Keras-RS does", "## What TensorFlow does")
    for front_end in front_ends():
        # Any other front-end's rule says what its library does, by its title.
        if rule.module.startswith(f"tpuemb_cli.frontends.{front_end.name}.rules."):
            doc = doc.replace(f"## What {front_end.title} does", "## What TensorFlow does")
    positions = [doc.find(section) for section in SECTIONS]
    assert all(p >= 0 for p in positions), [
        s for s, p in zip(SECTIONS, positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions)
    summary = rule.summary
    assert summary and summary.endswith(".") and not summary.startswith("#")
    for section in SECTIONS:
        body = doc.split(section, 1)[1].split("\n## ", 1)[0].strip()
        assert body, f"{rule.code}: empty {section}"
    example = doc.split("## Example", 1)[1].split("## Use instead", 1)[0]
    # In a format tpuemb reads: a Keras rule's is a model's config.json.
    assert "```pbtxt" in example or "```yaml" in example or "```json" in example


TF_LINK = re.compile(r"https://github\.com/tensorflow/tensorflow\b[^)\s]*")
JAX_LINK = re.compile(r"https://github\.com/jax-ml/jax-tpu-embedding\b[^)\s]*")
KERAS_RS_LINK = re.compile(r"https://github\.com/keras-team/keras-rs\b[^)\s]*")
TORCHREC_LINK = re.compile(r"https://github\.com/meta-pytorch/torchrec\b[^)\s]*")


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_documentation_cites_only_what_users_can_open(rule: Rule) -> None:
    # Users read these docs without our internal notes: a reference names TensorFlow's own
    # sources at the release the rules were written from, never a file outside the repository.
    doc = rule.doc
    for outside in ("reference/", "shared/", "../"):
        assert outside not in doc, f"{rule.code} cites {outside!r}"
    for link in TF_LINK.findall(doc):
        assert link.startswith("https://github.com/tensorflow/tensorflow/blob/v2.21.0/"), link
    for link in (
        JAX_LINK.findall(doc) if rule.module.startswith("tpuemb_cli.frontends.jax.rules.") else []
    ):
        assert link.startswith("https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/"), link
    for link in (
        KERAS_RS_LINK.findall(doc)
        if rule.module.startswith("tpuemb_cli.frontends.keras.rules.")
        else []
    ):
        assert link.startswith("https://github.com/keras-team/keras-rs/blob/v0.4.0/"), link
    for link in TORCHREC_LINK.findall(doc):
        assert link.startswith("https://github.com/meta-pytorch/torchrec/blob/v1.9.2/"), link


ROOT = Path(__file__).parent.parent
# Third-party files kept as they were published (tests/data/real-repo/SOURCES.md).
THIRD_PARTY = ROOT / "tests" / "data" / "real-repo"
# What points at notes outside the repository, which its readers do not have.
OUTSIDE = re.compile(r"/work/|\bshared/|\.\./shared|the shared reference|reference/tensorflow")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _docs() -> list[Path]:
    """Every Markdown file the repository ships (not build output, hidden folders or
    third-party content)."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        here = Path(folder)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d != "build" and here / d != THIRD_PARTY
        )
        found += [here / name for name in sorted(files) if name.endswith(".md")]
    return found


DOCS = _docs()


def test_the_docs_are_found() -> None:
    names = {str(path.relative_to(ROOT)) for path in DOCS}
    assert {"README.md", "protos/README.md", "tests/data/tf-2.21/README.md"} <= names


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_doc_cites_only_what_its_readers_can_open(doc: Path) -> None:
    # As for the rule docs: TensorFlow's sources by path at the release, with a link; a relative
    # link stays inside the repository and names a file that exists.
    text = doc.read_text(encoding="utf-8")
    assert not OUTSIDE.findall(text), f"{doc} cites {OUTSIDE.findall(text)}"
    for link in TF_LINK.findall(text):
        assert link.startswith("https://github.com/tensorflow/tensorflow/blob/v2.21.0/"), link
    for target in MARKDOWN_LINK.findall(text):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        resolved = (doc.parent / target.split("#", 1)[0]).resolve()
        assert resolved.is_relative_to(ROOT.resolve()) and resolved.exists(), (doc, target)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_every_rule_has_its_test_module(rule: Rule) -> None:
    module = Path(__file__).parent / "rules" / f"test_{rule.module.rsplit('.', 1)[1]}.py"
    assert module.exists(), module
    assert rule.code in module.read_text() or rule.name in module.read_text()


def test_find_by_code_or_name() -> None:
    assert find("te101") is find("negative-dynamic-tag") is not None
    assert find("nope") is None


@pytest.mark.parametrize("entry", CATALOG, ids=lambda entry: entry.code)
def test_catalog_entry_is_the_only_metadata_and_names_the_modules_checks(
    entry: tpuemb_cli.rules.Entry,
) -> None:
    # The engine imports a module by its entry alone: loading checks that the module defines
    # exactly the check functions the entry's `runs` names (a wrong entry would silently skip a
    # rule), and the metadata is nowhere else to drift from it.
    rule = load(entry.code)
    assert (rule.code, rule.name, rule.severity, rule.fixable, rule.supersedes) == (
        entry.code,
        entry.name,
        entry.severity,
        entry.fixable,
        entry.supersedes,
    )
    assert rule.module == entry.module
    assert entry.family in tpuemb_cli.rules.FAMILIES
    kinds = {kind for front_end in front_ends() for kind in front_end.kinds}
    assert set(entry.runs) <= set(tpuemb_cli.rules.CHECKS) | kinds
    module = importlib.import_module(entry.module)
    for constant in ("CODE", "NAME", "SEVERITY", "FIX", "SUPERSEDES"):
        assert not hasattr(module, constant), f"{entry.module}.{constant}: the catalog has it"


def test_a_module_whose_checks_disagree_with_its_entry_is_refused() -> None:
    entry = tpuemb_cli.rules.BY_CODE["TE406"]
    module = importlib.import_module(entry.module)
    with pytest.raises(TypeError, match="its catalog entry says"):
        Rule.from_module(entry._replace(runs=("optimizer",)), module)


def test_every_rule_module_is_in_the_catalog() -> None:
    # A family's modules are in its folder here, or in its front-end's rules folder (HOMES).
    folder = Path(tpuemb_cli.rules.__file__).parent
    modules = set()
    # A registered front-end's rows name their package (`home`).
    homes = {entry.family: entry.home for entry in CATALOG if entry.home}
    for family in tpuemb_cli.rules.FAMILIES:
        home = homes.get(family) or tpuemb_cli.rules.HOMES.get(family, f"tpuemb_cli.rules.{family}")
        path = folder.parent.joinpath(*home.split(".")[1:])
        modules |= {f"{home}.{p.stem}" for p in path.glob("*.py") if p.stem != "__init__"}
    assert modules == {entry.module for entry in CATALOG}
    assert {p.name for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        *(
            family
            for family in tpuemb_cli.rules.FAMILIES
            if family not in tpuemb_cli.rules.HOMES and family not in homes
        ),
        "lib",
    }


def _rule_modules_imported(config: str) -> set[str]:
    """The rule modules (``tpuemb_cli.rules.<family>.<name>``) linting ``config`` imports, and
    whether it imported a spec or graph rule's."""
    code = (
        "import sys\n"
        "from tpuemb_cli.api import lint_string\n"
        f"lint_string({config!r}, 'a.pbtxt')\n"
        "print(sorted(m for m in sys.modules if m.startswith('tpuemb_cli.rules.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = {name for name in ast.literal_eval(out) if name.rsplit(".", 1)[1][0] != "_"}
    assert not {"tpuemb_cli.rules.spec", "tpuemb_cli.frontends.tensorflow.rules"} & loaded
    return {m for m in loaded if m.count(".") == 3 and ".lib." not in m}


def test_a_config_run_imports_no_spec_or_graph_rule() -> None:
    # The point of the catalog: start-up pays only for the rules a document can trigger. Of the
    # optimizer rules of one algorithm (their `variant`), Adam's only; of the rules that need a
    # field (their `needs`), those of the fields the config sets.
    imported = _rule_modules_imported("table_descriptor { optimization_parameters { adam {} } }")
    assert imported == {
        e.module
        for e in CATALOG
        if {"config", "optimizer"} & set(e.runs) and e.variant in ("", "adam") and not e.needs
    }
    config = (
        "pipeline_execution_with_tensor_core: true\n"
        "table_descriptor { optimization_parameters { adam {} weight_decay_factor: 0.1\n"
        "  clipping_limits { lower { value: -1 } } } }"
    )
    fields = {"pipeline_execution_with_tensor_core", "weight_decay_factor", "clipping_limits"}
    assert _rule_modules_imported(config) == {
        e.module
        for e in CATALOG
        if {"config", "optimizer"} & set(e.runs)
        and e.variant in ("", "adam")
        and (not e.needs or fields & set(e.needs))
    }


ALGORITHMS = tuple(
    field.name for field in OptimizationParameters.DESCRIPTOR.oneofs_by_name["parameters"].fields
)
_FLOATS = (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE)


def _hostile(algorithm: str, value: float) -> OptimizationParameters:
    """An OptimizationParameters of ``algorithm`` whose every float is ``value`` and every flag
    set: what the rules of its algorithm and the rules of every algorithm object to."""
    params = OptimizationParameters()
    params.learning_rate.constant = value
    params.weight_decay_factor = value
    body = getattr(params, algorithm)
    body.SetInParent()
    for field in body.DESCRIPTOR.fields:
        if field.cpp_type in _FLOATS:
            setattr(body, field.name, value)
        elif field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
            setattr(body, field.name, True)
    return params


def _outside_its_variant(variant: str, check: Any) -> list[tuple[str, float, Site]]:
    """Where ``check`` (an optimizer rule's) finds something on an OptimizationParameters of
    another algorithm than ``variant``: where the engine, which runs it on its variant only,
    would miss what it finds."""
    found = []
    for algorithm in ALGORITHMS:
        if algorithm == variant:
            continue
        for value in (-1.0, 0.0, 2.0, math.inf, math.nan):
            for site in (STANDALONE, Site(in_config=True, trains=True)):
                if list(check(_hostile(algorithm, value), site)):
                    found.append((algorithm, value, site))
    return found


@pytest.mark.parametrize(
    "entry", [e for e in CATALOG if e.variant], ids=lambda e: f"{e.code}-{e.variant}"
)
def test_a_rule_of_one_variant_finds_nothing_on_the_others(
    entry: tpuemb_cli.rules.Entry,
) -> None:
    # The engine imports and runs a rule with a `variant` only on documents of that variant
    # (Engine.rules): that is right only if the rule finds nothing on any other.
    assert entry.runs == ("optimizer",) and entry.variant in ALGORITHMS
    assert _outside_its_variant(entry.variant, load(entry.code).check_optimizer) == []


def test_a_rule_marked_with_a_variant_it_does_not_keep_to_is_caught() -> None:
    # Planted: TE104 (invalid-learning-rate) judges every algorithm's learning rate.
    entry = tpuemb_cli.rules.BY_CODE["TE104"]
    assert not entry.variant
    found = _outside_its_variant("adam", load(entry.code).check_optimizer)
    assert {algorithm for algorithm, _, _ in found} == set(ALGORITHMS) - {"adam"}


def _filled(message: Any, value: float, choice: int, spread: int = 0, salt: int = 0) -> Any:
    """``message`` with every field set: floats to ``value`` plus ``spread`` times a number of
    the field's path (so that any two fields differ, or none do), integers alike, flags on,
    enums to a value other than the first, strings to "x", two of every repeated field, and of
    each oneof its ``choice``-th field (cycling); messages in it filled alike, four deep."""
    skipped = {
        f.name
        for oneof in message.DESCRIPTOR.oneofs
        for f in oneof.fields
        if f is not oneof.fields[choice % len(oneof.fields)]
    }
    for field in message.DESCRIPTOR.fields:
        if field.name in skipped:
            continue
        repeated = is_repeated(field)
        place = salt * 64 + field.number  # the path's field numbers, as digits
        if field.message_type is not None:
            if place >= 64**4 or is_map_entry(field):
                continue
            if repeated:
                for _ in range(2):
                    _filled(getattr(message, field.name).add(), value, choice, spread, place)
            else:
                getattr(message, field.name).SetInParent()
                _filled(getattr(message, field.name), value, choice, spread, place)
            continue
        number = (int(value) if math.isfinite(value) else -1) + spread * place
        if field.cpp_type in _FLOATS:
            item: Any = value + spread * place
        elif field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
            item = True
        elif field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            values = field.enum_type.values
            item = values[1 + choice % (len(values) - 1)].number if len(values) > 1 else 0
        elif field.cpp_type == FieldDescriptor.CPPTYPE_STRING:
            item = "x" if field.type == FieldDescriptor.TYPE_STRING else b"x"
        else:
            item = number if field.cpp_type in _SIGNED else abs(number)
        if repeated:
            getattr(message, field.name).extend([item, item])
        else:
            setattr(message, field.name, item)
    return message


_SIGNED = (FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_INT64)


def _cleared(message: Any, names: tuple[str, ...]) -> Any:
    """``message`` without the fields named ``names``, wherever they are in it."""
    waiting = [message]
    while waiting:
        current = waiting.pop()
        for field, value in current.ListFields():
            if field.name in names:
                current.ClearField(field.name)
            elif field.message_type is not None and not is_map_entry(field):
                waiting.extend(value if is_repeated(field) else [value])
    return message


def _without_its_needs(rule: Rule, needs: tuple[str, ...]) -> list[tuple[float, int, int]]:
    """Where ``rule`` finds something in messages that set every field but ``needs`` (every
    field, with ``needs`` empty): where the engine, which runs it only on a message that sets
    one, would miss what it finds."""
    found = []
    for value in (-1.0, 0.0, 2.0, 3.0, math.inf, math.nan):
        for choice, spread in itertools.product(range(4), (0, 1, -1)):
            if rule.check_optimizer is not None:
                params = _filled(OptimizationParameters(), value, choice, spread)
                for site in (STANDALONE, Site(in_config=True, trains=True)):
                    if list(rule.check_optimizer(_cleared(params, needs), site)):
                        found.append((value, choice, spread))
            if rule.check_config is not None:
                config = _filled(TPUEmbeddingConfiguration(), value, choice, spread)
                if list(rule.check_config(_cleared(config, needs))):
                    found.append((value, choice, spread))
    return found


@pytest.mark.parametrize("entry", [e for e in CATALOG if e.needs], ids=lambda e: e.code)
def test_a_rule_that_needs_a_field_finds_nothing_without_it(
    entry: tpuemb_cli.rules.Entry,
) -> None:
    # The engine imports and runs a rule with `needs` only on a message that sets one of those
    # fields (Engine.rules): that is right only if it finds nothing in any message that sets
    # none -- here, every other field set, to every kind of value.
    assert set(entry.runs) <= {"config", "optimizer"}
    assert _without_its_needs(load(entry.code), entry.needs) == []
    # The same messages with those fields set are ones it finds something in: the test above
    # is not passed by messages the rule has nothing to say about.
    assert _without_its_needs(load(entry.code), ())


def test_a_rule_marked_with_a_field_it_does_without_is_caught() -> None:
    # Planted: TE104 (invalid-learning-rate) judges a constant learning rate too, and TE103
    # (missing-learning-rate) a table without one; neither needs a dynamic one.
    assert _without_its_needs(load("TE104"), ("dynamic",))
    assert _without_its_needs(load("TE412"), ("batch_size_per_tensor_core",))


def test_the_engine_runs_a_rule_that_needs_a_field_where_it_is_set() -> None:
    engine = Engine()
    sgd = "stochastic_gradient_descent"
    plain = OptimizationParameters()
    plain.stochastic_gradient_descent.SetInParent()
    clipped = OptimizationParameters()
    clipped.CopyFrom(plain)
    clipped.gradient_clipping_limits.lower.value = -1
    every = {rule.code for rule in engine.rules("optimizer", sgd)}
    without = {rule.code for rule in engine.rules("optimizer", sgd, plain)}
    with_limits = {rule.code for rule in engine.rules("optimizer", sgd, clipped)}
    needing = {e.code for e in CATALOG if e.needs and "optimizer" in e.runs}
    assert without == every - needing
    assert with_limits - without == {"TE301", "TE302", "TE303"}
    # A message too large to walk is read as setting everything: every rule runs.
    config = TPUEmbeddingConfiguration()
    for _ in range(300):
        config.table_descriptor.add().optimization_parameters.CopyFrom(plain)
    assert {rule.code for rule in engine.rules("config", message=config)} == {
        rule.code for rule in engine.rules("config")
    }
    assert {rule.code for rule in engine.rules("config", message=config.table_descriptor[0])} < {
        rule.code for rule in engine.rules("config")
    }


def test_the_engine_runs_the_rules_of_a_documents_variant_and_of_every_variant() -> None:
    engine = Engine()
    every = {rule.code for rule in engine.rules("optimizer")}
    sgd = {rule.code for rule in engine.rules("optimizer", "stochastic_gradient_descent")}
    adam = {rule.code for rule in engine.rules("optimizer", "adam")}
    ftrl = {e.code for e in CATALOG if e.variant == "ftrl"}
    assert sgd == {e.code for e in CATALOG if "optimizer" in e.runs and not e.variant}
    assert adam == sgd | {e.code for e in CATALOG if e.variant == "adam"}
    assert ftrl and ftrl <= every and not ftrl & adam
    assert {rule.code for rule in engine.rules("optimizer", "")} == sgd
