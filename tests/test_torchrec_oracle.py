"""tpuemb's TorchRec front-end against torchrec 1.9.2's own ``torchrec.experimental.torch_tpu``
on CPU (`make test-torchrec`; skipped where torchrec is not installed).

Every case of tests/torchrec_cases.py is built by torchrec (tests/torchrec_library.py's
``run_library``, with its documented stand-in for the native preprocessing module and
``torch.device("tpu")``) and read by tpuemb from the same live objects: ``on_tables`` hands
``tpuemb_cli.torchrec.spec_from_torchrec`` and ``lint_torchrec`` the SparseCoreEmbeddingConfig
objects the library is about to stack, before any call touches them, with the case's stack
calls and collection arguments. Where torchrec's own EmbeddingBagConfig refuses to be built
(``num_embeddings`` <= 0 without an init range) there are no live objects: tpuemb reads the same
tables built with an explicit init range, which it does not read. Then, per case:

- refusals: torchrec refuses iff tpuemb's stacking (``spec/stacking.py``) refuses or a tpuemb
  rule reports an error; where the stacking models the refusal, in the same call, with the same
  exception type and message (a ``{...}`` set in it compared as a set);
- stacks: ``[s.to_dict(spec) for s in stack(spec).stacks]`` equals the library's
  ``StackedSparseCoreEmbeddingConfig.to_dict()`` list, in order, and the logged warnings are the
  library's (the stacks a refused case had made, compared without order);
- module: each stack's weight and optimizer-state shapes on one device (``rows_per_device`` x
  ``width``, the slots of ``spec/memory.py``) equal the fused module's, stack by stack;
- verdicts: for each accepted-but-wrong behaviour of NOTES-torchrec.md, the rule that reports
  it (``EXPECTED``); every case torchrec refuses gets an error finding, whatever its code; a
  case torchrec accepts gets no error but the expected ones.

A rule not yet in tpuemb's catalog (``tpuemb_cli.rules.BY_CODE``) cannot be asserted: a
comparison that needs only such rules is *pending* and its test skips, naming them; it turns
strict once the rule lands. ``-rP`` prints the summary (``test_summary``).

Checkpoints: for each save / load pair of ``checkpoint_cases()``, the checkpoint torchrec's
``SparseCoreSavePlanner`` writes is read by tpuemb (``read_dcp_metadata``) and compared with
torch's own ``FileSystemReader.read_metadata()``; ``checkpoint_pairs()`` is the hook for
comparing ``tpuemb diff``'s verdicts with ``SparseCoreLoadPlanner``'s loads.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import json
import logging
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchrec")

from tests import torchrec_library as lib
from tests.torchrec_cases import cases, checkpoint_cases
from tpuemb_cli.frontends.torchrec.load.dcp_metadata import (
    BytesEntry,
    TensorEntry,
    read_dcp_metadata,
)
from tpuemb_cli.frontends.torchrec.spec.memory import SLOTS, model
from tpuemb_cli.frontends.torchrec.spec.stacking import Stacking, stack
from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.rules import BY_CODE

# The public facade users call (an import hook makes it tpuemb_cli.frontends.torchrec.api).
torchrec_api: Any = importlib.import_module("tpuemb_cli.torchrec")

# ---------------------------------------------------------------- what tpuemb should say

# Case id -> the codes tpuemb must report for it (any severity). "A|B": either. From the
# behaviour catalogue of NOTES-torchrec.md; the rules' names:
# TE841 duplicate-table-name, TE842 unknown-stack-table, TE843 empty-stack,
# TE844 incompatible-stack, TE845 missing-max-seq-len, TE846 excess-padding,
# TE847 batch-not-divisible, TE848 unsupported-optimizer, TE849 zero-size,
# TE850 max-seq-len-mismatch, TE851 colliding-stack-names, TE852 ignored-stack-table-name,
# TE853 table-kind-mismatch, TE854 duplicate-feature-name, TE855 ignored-optimizer-option,
# TE856 stack-topology-mismatch, TE857 ignored-table-limit, TE858 invalid-value.
# A case not listed is valid: no error. The seeded random cases get theirs from derived().
EXPECTED: dict[str, tuple[str, ...]] = {
    # Logged, not raised: "Excess padding detected ..." (dims 12/16/3; 8/20).
    "stack_named_rot1_g4s4": ("TE846",),
    "stack_excess_padding_warns": ("TE846",),
    # A stack_table_name equal to another table's name merges the two tables.
    "prepare_stack_name_equals_table": ("TE861",),
    # Auto stacking ignores stack_table_name.
    "auto_ignores_stack_table_name": ("TE852",),
    # Two tables named "a": accepted by prepare and the module (one stack, the later table's
    # layout for both), refused by stack_tables(["a"]) ("not found: set()").
    "dup_names_prepare": ("TE841",),
    "dup_names_module": ("TE841",),
    "dup_names_stack_tables": ("TE841",),
    # A bare string as table_names: read as its characters ("ab" stacks a and b; "user" is
    # refused for u, s, e, r).
    # A string of one-letter names is stacked as the list of them would be: nothing to say.
    "bare_string_substring": (),
    "bare_string_user": ("TE842|TE858",),
    "empty_table_names": ("TE843",),
    "name_not_found": ("TE842",),
    "ebc_ec_mixed": ("TE844",),
    "ebc_ec_mixed_prepare": ("TE844",),
    "pooling_mixed": ("TE844",),
    # Refused (fail_on_excess_padding): the refusal's rule, not the warning's.
    "excess_padding_fail": ("TE844",),
    # num_embeddings / embedding_dim <= 0, limits 0, no devices, no SparseCores: refused
    # (torchrec's config, a ZeroDivisionError, a reshape) or accepted with nothing to look up.
    "vocab_zero_module": ("TE849",),
    "vocab_zero_with_init_range": ("TE849",),
    "vocab_negative_with_init_range": ("TE849",),
    "vocab_negative": ("TE849",),
    "dim_zero_module": ("TE849",),
    "dim_zero_prepare": ("TE849",),
    "limits_zero": ("TE849",),
    "devices_zero": ("TE849",),
    "module_sc_zero": ("TE849",),
    "seq_no_max_seq_len_stack": ("TE845",),
    "seq_no_max_seq_len_auto": ("TE845",),
    "seq_no_max_seq_len_ec": ("TE845",),
    # ... and a sequence table in the bag collection.
    # Refused for its max_seq_len before the collection reads its kind.
    "seq_no_max_seq_len_in_bag_coll": ("TE845",),
    "max_seq_len_differs": ("TE850",),
    "same_name_two_stacks": ("TE851",),
    "seq_in_bag_collection": ("TE853",),
    "bag_in_seq_collection": ("TE853",),
    "batch_not_divisible": ("TE847",),
    "optimizer_adamw": ("TE848",),
    "optimizer_rmsprop": ("TE848",),
    "optimizer_string": ("TE848",),
    "topology_mismatch_stack_module": ("TE856",),
    "duplicate_feature_names": ("TE854",),
    # a's own limits (64 / 32) are lost in the stack, which takes b's 256 / 256.
    "stack_limits_differ": ("TE857",),
    # Adam's weight_decay and amsgrad: kept in optimizer_kwargs, read by nothing.
    "optimizer_kwargs_ignored": ("TE855",),
}
# Accepted, and wrong, but no listed rule is plainly theirs: what tpuemb says is shown in the
# summary, and no verdict is asserted (an error finding is allowed).
UNCOVERED = {
    "restack_table": "a table stacked twice: the first stack still lists it, both hold its rows",
    "no_tables_module": "a collection of no tables: unstack_activations raises at the first step",
    "no_features": "a table with no feature: unstack_activations raises at the first step",
}

EXCESS = "Excess padding detected"


def derived(case: dict[str, Any], outcome: dict[str, Any]) -> set[str]:
    """The codes the library's own outcome calls for, whatever the case: TE846 where it logs
    excess padding (TE844 where it raises it), TE850 where a stack holds sequence tables of
    different max_seq_len, TE852 where a table's stack_table_name is not its stack's name
    (auto stacking ignored it)."""
    codes = set()
    refused = outcome["refused"] or {}
    if EXCESS in refused.get("message", ""):
        codes.add("TE844")  # refused: fail_on_excess_padding
    elif any(EXCESS in w for w in outcome["warnings"]):
        codes.add("TE846")
    # An activation limit of 0 or less, which torchrec takes and stacks by (TE849).
    limits = [call.get("activation_mem_bytes_limit") for call in case.get("stack_calls") or []]
    limits.append((case.get("module") or {}).get("activation_mem_bytes_limit"))
    if any(limit is not None and limit <= 0 for limit in limits):
        codes.add("TE849")
    for made in outcome["stacks"]:
        # Sequence tables of different max_seq_len in one stack: read with the first's (TE850).
        lengths = {t["max_seq_len"] for t in made["tables"] if not t["is_bag"]}
        if len(lengths) > 1:
            codes.add("TE850")
    stack_of = {t["name"]: s["stack_name"] for s in outcome["stacks"] for t in s["tables"]}
    for table in case["tables"]:
        wanted = table.get("stack_table_name")
        if wanted and table["name"] in stack_of and stack_of[table["name"]] != wanted:
            codes.add("TE852")
    return codes


def expected_codes(case: dict[str, Any], outcome: dict[str, Any]) -> tuple[str, ...]:
    if case["id"] in EXPECTED:
        return EXPECTED[case["id"]]
    return tuple(sorted(derived(case, outcome)))


# ---------------------------------------------------------------- both sides of a case

CALL_KEYS = {"tables": "table_names", "name": "stack_table_name"}
MODULE_KEYS = (
    "batch_size",
    "global_device_count",
    "num_sc_per_device",
    "auto_stack",
    "activation_mem_bytes_limit",
)


def tpuemb_options(case: dict[str, Any]) -> dict[str, Any]:
    """spec_from_torchrec's keyword arguments for the case: its stack calls as the library is
    given them, and its collection's arguments (or prepare's topology)."""
    calls = [
        {CALL_KEYS.get(k, k): v for k, v in call.items() if v is not None}
        for call in case["stack_calls"]
    ]
    options: dict[str, Any] = {"stack_calls": calls}
    m = case.get("module")
    if m is None:
        prepare = case.get("prepare") or {}
        for k in ("global_device_count", "num_sc_per_device"):
            if k in prepare:
                options[k] = prepare[k]
        return options
    options["collection"] = m.get("collection", "bag")
    # The very class (or string) the library's collection is given.
    options["optimizer"] = lib._optimizer_class(m.get("optimizer", "SGD"))
    options["optimizer_kwargs"] = m.get("optimizer_kwargs")
    for k in MODULE_KEYS:
        if m.get(k) is not None:
            options[k] = m[k]
    return options


class Side:
    """What tpuemb makes of the live tables: the spec, its stacking and memory, the findings."""

    def __init__(self, tables: list[Any], options: dict[str, Any]) -> None:
        self.spec = torchrec_api.spec_from_torchrec(tables, **options)
        self.stacking: Stacking = stack(self.spec)
        self.memory = model(self.spec, self.stacking)
        self.findings: list[Finding] = torchrec_api.lint_torchrec(tables, isolated=True, **options)

    def codes(self, severity: Severity | None = None) -> set[str]:
        return {f.rule for f in self.findings if severity is None or f.severity == severity}


AGREE, DISAGREE, PENDING, NA = "agree", "disagree", "pending", "n/a"
COMPARISONS = ("refusal", "stacks", "module", "verdicts", "built")


class Compared:
    """One case, built by both sides, and each comparison's (status, detail)."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.case = case
        self.id: str = case["id"]
        options = tpuemb_options(case)
        hooked: list[Side] = []
        failed: list[BaseException] = []

        def on_tables(tables: list[Any]) -> None:
            try:
                hooked.append(Side(tables, options))
            except Exception as error:  # raised again below, never taken for a refusal
                failed.append(error)

        built: list[Any] = []

        def on_module(module: Any) -> None:
            # The built collection read as a user's script reads it: its stacks recorded.
            try:
                spec = torchrec_api.spec_from_torchrec(module)
                built.append((spec, stack(spec), torchrec_api.lint_torchrec(module, isolated=True)))
            except Exception as error:
                failed.append(error)

        self.outcome = lib.run_library(case, on_tables, on_module)
        if failed:
            raise failed[0]
        self.built = built[0] if built else None
        self.live = "the library's objects" if hooked else "the same tables with an init range"
        self.ours = hooked[0] if hooked else Side(lib.make_tables(case, init_range=0.1), options)
        self.expected = expected_codes(case, self.outcome)
        self.results: dict[str, tuple[str, str]] = {
            "refusal": self._refusal(),
            "stacks": self._stacks(),
            "module": self._module(),
            "verdicts": self._verdicts(),
            "built": self._built(),
        }

    # -- (e) the built collection, read back

    def _built(self) -> tuple[str, str]:
        """A collection torchrec built, read by ``spec_from_torchrec(collection)``: its recorded
        stacks made again for its topology are the library's, and TE862 says nothing."""
        if self.built is None:
            return NA, "no collection built"
        spec, stacking, findings = self.built
        ours = [s.to_dict(spec) for s in stacking.stacks]
        if ours != self.outcome["stacks"]:
            return DISAGREE, f"built collection's stacks {ours} != {self.outcome['stacks']}"
        if any(f.rule == "TE862" for f in findings):
            return DISAGREE, "TE862 on the collection torchrec built"
        return AGREE, "the built collection's stacks are computed again exactly"

    # -- (a) refusals

    def _library_call(self) -> tuple[str, int]:
        """Where the library refused: the call and, for a stack call, its index."""
        where = self.outcome["refused"]["where"]
        if where in ("stack_tables", "auto_stack_tables"):
            return where, len(self.outcome["call_results"])
        return where, -1

    def _our_call(self) -> tuple[str, int]:
        refusal = self.ours.stacking.refusal
        assert refusal is not None
        if refusal.call_index >= 0:
            return self.ours.spec.stack_calls[refusal.call_index].call, refusal.call_index
        has_collection = self.ours.spec.HasField("collection")
        return ("constructor" if has_collection else "prepare_tables_for_stacking"), -1

    def _pending(self, why: str) -> tuple[str, str] | None:
        """PENDING when every expected code is still missing from the catalog."""
        if self.expected and not any(landed(req) for req in self.expected):
            return PENDING, f"{why}; waits for {', '.join(self.expected)} (not in the catalog)"
        return None

    def _refusal(self) -> tuple[str, str]:
        theirs = self.outcome["refused"]
        ours = self.ours.stacking.refusal
        errors = sorted(self.ours.codes(Severity.ERROR))
        if ours is not None:
            said = f"{ours.type}: {ours.message}"
            if theirs is None:
                return DISAGREE, f"tpuemb's stacking refuses ({said}); torchrec accepts"
            if self._our_call() != self._library_call():
                return (
                    DISAGREE,
                    f"refused in {self._our_call()}, torchrec in {self._library_call()}",
                )
            if (ours.type, same_sets(ours.message)) != (
                theirs["type"],
                same_sets(theirs["message"]),
            ):
                return DISAGREE, f"tpuemb: {said}; torchrec: {theirs['type']}: {theirs['message']}"
            return AGREE, f"both refuse in {theirs['where']}: {said}"
        if theirs is not None:
            said = f"torchrec refuses in {theirs['where']} ({theirs['type']}: {theirs['message']})"
            if errors:
                return AGREE, f"{said}; tpuemb: {', '.join(errors)}"
            return self._pending(said) or (DISAGREE, f"{said}; tpuemb accepts, no error")
        return AGREE, "both accept"

    # -- (b) stacks

    def _stacks(self) -> tuple[str, str]:
        spec, stacking = self.ours.spec, self.ours.stacking
        theirs = self.outcome["stacks"]
        if (self.outcome["refused"] or {}).get("where") == "table_config":
            return NA, "torchrec's config refused the tables: no stack"
        if stacking.refusal is None:
            ours = [s.to_dict(spec) for s in stacking.stacks]
        else:
            # The stacks made before the refusal, each once (the library lists them in the order
            # the calls returned them).
            made: dict[int, Any] = {}
            for s in stacking.stack_of:
                if s is not None:
                    made.setdefault(id(s), s)
            ours = [s.to_dict(spec) for s in made.values()]
        if self.outcome["refused"] is not None:
            ours, theirs = sorted_json(ours), sorted_json(theirs)
        if ours != theirs:
            return DISAGREE, first_difference(ours, theirs)
        warnings = list(stacking.warnings)
        if warnings != self.outcome["warnings"]:
            return DISAGREE, f"warnings: tpuemb {warnings}, torchrec {self.outcome['warnings']}"
        return AGREE, f"{len(ours)} stacks, {len(warnings)} warnings"

    # -- (c) the module

    def _module(self) -> tuple[str, str]:
        module = self.outcome["module"]
        memory = self.ours.memory
        stacks = memory.stacks if memory is not None else ()
        built = self.outcome["weights_built_before_refusal"]
        if built:
            # Refused after allocating weights (an unsupported optimizer): the first stacks of
            # tpuemb's order are the ones allocated.
            ours_first = [s.name for s in stacks[: len(built)]]
            if ours_first != built:
                return (
                    DISAGREE,
                    f"weights built before the refusal: torchrec {built}, tpuemb {ours_first}",
                )
            return AGREE, f"refused after building {built}, tpuemb's first stacks"
        if module is None:
            return NA, "no module built"
        ours = [(s.name, [s.rows_per_device, s.width]) for s in stacks]
        theirs = [
            (n, (module["weights"][n] or {}).get("local_shape")) for n in module["stack_names"]
        ]
        if ours != theirs:
            return DISAGREE, f"weights: tpuemb {ours}, torchrec {theirs}"
        for slot in ("accumulators", "momentums", "velocities"):
            want = {s.name: [s.rows_per_device, s.width] for s in stacks if slot in s.slots}
            if module[slot] != want:
                return DISAGREE, f"{slot}: tpuemb {want}, torchrec {module[slot]}"
        if sorted(module["learning_rates"]) != sorted(s.name for s in stacks):
            return DISAGREE, f"learning rates: torchrec {sorted(module['learning_rates'])}"
        optimizer = self.ours.spec.collection.optimizer.type
        if optimizer not in SLOTS or module["optimizer_type"] != optimizer:
            return DISAGREE, f"optimizer: tpuemb {optimizer!r}, torchrec {module['optimizer_type']}"
        return AGREE, f"{len(ours)} stacks: {ours}, slots {SLOTS[optimizer]}"

    # -- (d) verdicts

    def _verdicts(self) -> tuple[str, str]:
        reported = self.ours.codes()
        errors = self.ours.codes(Severity.ERROR)
        problems: list[str] = []
        waiting: list[str] = []
        for req in self.expected:
            if not landed(req):
                waiting.append(req)
            elif not set(req.split("|")) & reported:
                problems.append(f"{req} not reported")
        refused = self.outcome["refused"] is not None
        if refused and not errors and not (waiting and len(waiting) == len(self.expected)):
            problems.append("torchrec refuses it and tpuemb reports no error finding")
        if not refused and self.id not in UNCOVERED:
            allowed = {code for req in self.expected for code in req.split("|")}
            extra = sorted(errors - allowed)
            if extra:
                problems.append(f"errors {extra} on a case torchrec accepts")
        said = f"expected {list(self.expected)}, reported {sorted(reported)}"
        if problems:
            return DISAGREE, f"{'; '.join(problems)} ({said})"
        if waiting:
            return PENDING, f"{said}; {', '.join(waiting)} not in the catalog yet"
        return AGREE, said


def landed(requirement: str) -> bool:
    """Whether any code of "A|B" is in tpuemb's catalog."""
    return any(code in BY_CODE for code in requirement.split("|"))


SET = re.compile(r"\{([^{}]*)\}")


def same_sets(message: str) -> str:
    """The message with the items of each ``{...}`` in it sorted (a set prints in hash order)."""
    return SET.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


def sorted_json(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


def first_difference(ours: list[Any], theirs: list[Any]) -> str:
    if len(ours) != len(theirs):
        return (
            f"{len(ours)} stacks {[s['stack_name'] for s in ours]}, torchrec {len(theirs)} "
            f"{[s['stack_name'] for s in theirs]}"
        )
    for mine, lib_stack in zip(ours, theirs, strict=True):
        for key in sorted(set(mine) | set(lib_stack)):
            if mine.get(key) != lib_stack.get(key):
                return (
                    f"stack {lib_stack.get('stack_name')!r} {key}: tpuemb {mine.get(key)!r}, "
                    f"torchrec {lib_stack.get(key)!r}"
                )
    return "equal"


@functools.cache
def compared() -> dict[str, Compared]:
    """Every case, built by both sides (once per process)."""
    return {case["id"]: Compared(case) for case in cases()}


CASE_IDS = [case["id"] for case in cases()]


def _check(case_id: str, comparison: str) -> None:
    status, detail = compared()[case_id].results[comparison]
    if status == PENDING:
        pytest.skip(f"{case_id}: {detail}")
    assert status in (AGREE, NA), f"{case_id}: {detail}"


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_refusal(case_id: str) -> None:
    _check(case_id, "refusal")


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_stacks(case_id: str) -> None:
    _check(case_id, "stacks")


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_module(case_id: str) -> None:
    _check(case_id, "module")


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_verdicts(case_id: str) -> None:
    _check(case_id, "verdicts")


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_built_collection(case_id: str) -> None:
    _check(case_id, "built")


def test_the_cases_are_enough_and_every_one_is_compared() -> None:
    assert len(CASE_IDS) >= 40
    assert sorted(compared()) == sorted(CASE_IDS)
    # Both sides read live objects for every case torchrec could build.
    refused_configs = {
        i
        for i, c in compared().items()
        if (c.outcome["refused"] or {}).get("where") == "table_config"
    }
    assert {
        i for i, c in compared().items() if c.live != "the library's objects"
    } == refused_configs
    # Each kind of comparison is exercised: refusals both sides model, modules of every optimizer.
    results = [c.results for c in compared().values()]
    assert sum(r["refusal"][1].startswith("both refuse") for r in results) >= 10
    optimizers = {
        c.outcome["module"]["optimizer_type"] for c in compared().values() if c.outcome["module"]
    }
    assert optimizers == {"SGD", "Adagrad", "Adam"}


def test_the_derived_codes_agree_with_the_table() -> None:
    """For the hand-written cases, what derived() reads off the library's outcome is in the
    table (so the random cases' expectations follow the same reading)."""
    for case_id, c in compared().items():
        if case_id in EXPECTED:
            table = {code for req in EXPECTED[case_id] for code in req.split("|")}
            assert derived(c.case, c.outcome) <= table, case_id


def test_summary() -> None:
    """Prints (-rP) how many cases each comparison agrees on, the disagreements, and which
    rules the pending verdicts wait for."""
    everything = compared()
    counts = {
        name: Counter(c.results[name][0] for c in everything.values()) for name in COMPARISONS
    }
    statuses = [{c.results[n][0] for n in COMPARISONS} for c in everything.values()]
    agreeing = sum(s <= {AGREE, NA} for s in statuses)
    disagreeing = sum(DISAGREE in s for s in statuses)
    parts = [
        f"{name} {counts[name][AGREE]}/{len(everything) - counts[name][NA]} agree"
        + (f", {counts[name][PENDING]} pending" if counts[name][PENDING] else "")
        + (f", {counts[name][DISAGREE]} DISAGREE" if counts[name][DISAGREE] else "")
        for name in COMPARISONS
    ]
    print(
        f"\ntorchrec oracle: {len(everything)} cases compared, {agreeing} agree in every "
        f"comparison, {len(everything) - agreeing - disagreeing} pending, {disagreeing} "
        "disagree; " + "; ".join(parts)
    )
    waiting: Counter[str] = Counter()
    for c in everything.values():
        for name in COMPARISONS:
            status, detail = c.results[name]
            if status == DISAGREE:
                print(f"  DISAGREE {c.id} {name}: {detail}")
        if PENDING in {c.results[n][0] for n in COMPARISONS}:
            waiting.update(req for req in c.expected if not landed(req))
    if waiting:
        print(
            "  pending on rules not in the catalog yet (cases): "
            + ", ".join(f"{req} {n}" for req, n in sorted(waiting.items()))
        )
    for case_id, why in UNCOVERED.items():
        print(
            f"  uncovered: {case_id} ({why}): "
            f"tpuemb reports {sorted(everything[case_id].ours.codes())}"
        )
    assert len(everything) >= 40


# ---------------------------------------------------------------- checkpoints

_CHECKPOINTS: list[Path] = []


def _checkpoint_root() -> Path:
    if not _CHECKPOINTS:
        root = Path(tempfile.mkdtemp(prefix="tpuemb-torchrec-oracle-"))
        atexit.register(shutil.rmtree, root, True)
        _CHECKPOINTS.append(root)
    return _CHECKPOINTS[0]


# torch.distributed.checkpoint logs every step of a save and a load at DEBUG under this name.
DCP_LOGGER = "c10d-NullHandler-dcp_logger"


@functools.cache
def _saved_and_loaded() -> tuple[tuple[dict[str, Any], dict[str, Any], dict[str, Any]], ...]:
    quiet = logging.getLogger(DCP_LOGGER)
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return _save_and_load_every_pair()
    finally:
        quiet.setLevel(level)


def _save_and_load_every_pair() -> tuple[
    tuple[dict[str, Any], dict[str, Any], dict[str, Any]], ...
]:
    out = []
    for k, pair in enumerate(checkpoint_cases()):
        directory = _checkpoint_root() / f"{k:02d}-{pair['id']}"
        saved = lib.save_checkpoint(pair["save"], directory)
        loaded = (
            lib.load_checkpoint(
                pair["save"],
                pair["load"],
                directory,
                pair["unshard_for_cpu"],
                pair.get("into_fused"),
            )
            if saved["error"] is None
            else None
        )
        outcome = {
            "id": pair["id"],
            "note": pair["note"],
            "checkpoint": str(directory),
            "unshard_for_cpu": pair["unshard_for_cpu"],
            "into_fused": pair.get("into_fused", not pair["unshard_for_cpu"]),
            "saved": saved,
            "loaded": loaded,
        }
        out.append((pair["save"], pair["load"], outcome))
    return tuple(out)


def checkpoint_pairs() -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """Each checkpoint pair of tests/torchrec_cases.py, saved and loaded by torchrec (once per
    process): (saved_case, loaded_case, library_outcome). library_outcome holds the pair's
    ``id`` and ``note``, ``checkpoint`` (the folder torchrec saved, kept for the session: what
    ``tpuemb diff`` reads), ``unshard_for_cpu`` and ``into_fused`` (how it was loaded),
    ``saved`` (lib.save_checkpoint's result) and ``loaded`` (lib.load_checkpoint's: per table,
    the rows that came back right, unset or wrong, or the load's refusal in ``error``)."""
    yield from _saved_and_loaded()


def _torch_entries(metadata: Any) -> dict[str, Any]:
    import torch.distributed.checkpoint.metadata as m

    out: dict[str, Any] = {}
    for key, entry in metadata.state_dict_metadata.items():
        if isinstance(entry, m.BytesStorageMetadata):
            out[key] = "bytes"
        else:
            out[key] = (
                str(entry.properties.dtype).removeprefix("torch."),
                tuple(entry.size),
                tuple((tuple(c.offsets), tuple(c.sizes)) for c in entry.chunks),
            )
    return out


def _our_entries(entries: Mapping[str, TensorEntry | BytesEntry]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, entry in entries.items():
        if isinstance(entry, BytesEntry):
            out[key] = "bytes"
        else:
            out[key] = (
                entry.dtype,
                entry.size,
                tuple((c.offsets, c.sizes) for c in entry.chunks),
            )
    return out


def _plain(value: Any) -> Any:
    """torch's planner_data as JSON would hold it (tuples as lists)."""
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("pair_id", [p["id"] for p in checkpoint_cases()])
def test_checkpoint_metadata_reads_as_torch_reads_it(pair_id: str) -> None:
    import torch.distributed.checkpoint as dcp

    saved_case, _, outcome = next(p for p in checkpoint_pairs() if p[2]["id"] == pair_id)
    assert outcome["saved"]["error"] is None, outcome["saved"]["error"]
    directory = outcome["checkpoint"]
    theirs = dcp.FileSystemReader(directory).read_metadata()
    ours = read_dcp_metadata(directory)
    # Keys in the order saved, dtypes, global sizes and chunks.
    assert list(ours.entries) == list(theirs.state_dict_metadata)
    assert _our_entries(ours.entries) == _torch_entries(theirs)
    # planner_data, as plain data, whole: DCP's flattening mapping and torchrec's "sparsecore".
    assert ours.planner_data == theirs.planner_data
    assert ours.sparsecore == theirs.planner_data["sparsecore"]
    sparsecore = ours.sparsecore
    assert sparsecore is not None
    assert {k: sparsecore[k] for k in ("world_size", "num_sc_per_device")} == {
        "world_size": 1,
        "num_sc_per_device": saved_case["module"].get("num_sc_per_device", 2),
    }
    # What the checkpoint records of the stacks is what tpuemb's stacking makes of the case.
    side = Side(lib.make_tables(saved_case), tpuemb_options(saved_case))
    assert side.stacking.refusal is None
    ours_stacks = {s.name: s.to_dict(side.spec) for s in side.stacking.stacks}
    assert _plain(sparsecore["stacked_configs"]) == ours_stacks
    print(
        f"{pair_id}: {len(ours.entries)} keys, stacks {sorted(ours_stacks)}: "
        "read as torch reads them"
    )


def test_checkpoint_pairs_hook() -> None:
    """The hook yields every pair once, each saved, with the folder torchrec wrote."""
    pairs = list(checkpoint_pairs())
    assert [o["id"] for _, _, o in pairs] == [p["id"] for p in checkpoint_cases()]
    for saved_case, loaded_case, outcome in pairs:
        assert Path(outcome["checkpoint"], ".metadata").is_file(), outcome["id"]
        assert outcome["loaded"] is not None, outcome["id"]
        assert saved_case["module"] is not None and loaded_case["module"] is not None


# ---------------------------------------------------------------- diff against the checkpoints

# The loads tpuemb's `diff --against-checkpoint` speaks for: into a fused collection, as a
# training job resumes (the CPU-inference loads, `unshard_for_cpu`, are no collection's spec).
RESUMED = [
    (saved, loaded, out)
    for saved, loaded, out in checkpoint_pairs()
    if out["into_fused"] and not out["unshard_for_cpu"]
]


def _diff_kinds(checkpoint: str, loaded_case: dict[str, Any]) -> tuple[int, set[str]]:
    """`tpuemb diff --against-checkpoint` of the loaded case's spec: its exit code and the kinds
    of change (rule names) it reports."""
    from click.testing import CliRunner
    from google.protobuf import text_format

    from tpuemb_cli.cli import main

    spec = torchrec_api.spec_from_torchrec(
        lib.make_tables(loaded_case, init_range=0.1), **tpuemb_options(loaded_case)
    )
    folder = Path(tempfile.mkdtemp(prefix="tpuemb-diff-"))
    try:
        path = folder / "spec.pbtxt"
        path.write_text(text_format.MessageToString(spec), encoding="utf-8")
        done = CliRunner().invoke(
            main,
            [
                "diff",
                "--isolated",
                "--output-format",
                "json",
                "--against-checkpoint",
                checkpoint,
                str(path),
            ],
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return done.exit_code, {change["kind"] for change in report.get("changes", [])}


@pytest.mark.parametrize("pair", RESUMED, ids=lambda pair: pair[2]["id"])
def test_diff_says_what_the_load_planner_does(
    pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    """A checkpoint torchrec saved, loaded by SparseCoreLoadPlanner into another collection:
    where the load raises, diff reports a restore-error; where every row comes back where it
    was, neither a restore-error nor a silent-reinit; where rows come back elsewhere or unset,
    a silent-reinit or a restore-error."""
    _saved, loaded, out = pair
    code, kinds = _diff_kinds(str(out["checkpoint"]), loaded)
    result = out["loaded"]
    bad = {"restore-error", "silent-reinit"}
    if result["error"] is not None:
        assert "restore-error" in kinds, (out["id"], result["error"], kinds, code)
        return
    exact = all(t["right"] == t["rows"] for t in result["tables"].values())
    if exact:
        assert not kinds & bad, (out["id"], kinds)
    else:
        assert kinds & bad, (out["id"], result["tables"], kinds)
    print(
        f"{out['id']}: the load {'restores every row' if exact else 'misplaces rows'}; "
        f"diff: {sorted(kinds) or 'no change'}"
    )


def test_every_resumed_pair_is_compared() -> None:
    assert len(RESUMED) >= 6, [out["id"] for *_, out in RESUMED]
