"""The engine: runs the selected rules over a loaded document and stamps what they find.

Rules yield Violations (a field path, a message, a fix). The engine adds the rule's code, name
and effective severity, turns the field path into a position through the document's source map,
drops what ``per-file-ignores`` and suppressions cover, reports the suppressions that are refused
or unused, and sorts. Parse problems from the loader come in the same way, under the parse rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message

from tpuemb_cli.engine.settings import Settings
from tpuemb_cli.load import Document
from tpuemb_cli.load.limits import escaped
from tpuemb_cli.model.findings import Finding, Position, Transition, Violation
from tpuemb_cli.model.paths import FieldPath, render
from tpuemb_cli.model.schema import kind_of
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.rules import BY_CODE, BY_NAME, CATALOG, CHANGES, Entry, command_codes, load
from tpuemb_cli.rules.base import STANDALONE, TRAINING_MODES, Fit, Rule, Site

if TYPE_CHECKING:
    from tpuemb_cli.compat.kinds import Placed
    from tpuemb_cli.engine.suppressions import ConfigUse
    from tpuemb_cli.model.accelerators import Accelerator
    from tpuemb_cli.model.chips import Chip
    from tpuemb_cli.model.edits import Fix
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts

Emit = Callable[[Rule, FieldPath, Violation], None]
# The help of a change: an intended one is acknowledged, so that the gate stays on for the rest.
_ACKNOWLEDGE_HERE = (
    "if the change is intended, acknowledge it: `# tpuemb: ignore[{rule}] <why>` on this line, "
    "or a [[suppress]] entry for this field with a reason"
)
_ACKNOWLEDGE_ELSEWHERE = (
    "if the change is intended, acknowledge it in the new file: `# tpuemb: file-ignore[{rule}] "
    "<why>` before its first field, or a [[suppress]] entry for this field with a reason"
)
# A new file without suppression comments (JSON, YAML, binary): the configuration only.
_ACKNOWLEDGE_IN_SETTINGS = (
    "if the change is intended, acknowledge it with a [[suppress]] entry for `{file}`, this "
    "field and `{rule}`, with a reason ({format} files hold no suppression comments)"
)


def _with_help(help: str, advice: str) -> str:
    """A change's own advice (how to carry the state across), then how to acknowledge it."""
    return f"{help}; {advice}" if help else advice


_TABLE, _OPTIMIZER = ("table_descriptor",), ("optimization_parameters",)


def _under(prefix: FieldPath, fix: Fix | None) -> Fix | None:
    """A rule's fix, with its field paths placed under ``prefix`` (a table's optimizer)."""
    if fix is None or not prefix:
        return fix
    from tpuemb_cli.model.edits import TextEdit  # a rule made a fix: it is imported

    edits = tuple(
        edit._replace(path=prefix + edit.path) if not isinstance(edit, TextEdit) else edit
        for edit in fix.edits
    )
    return fix._replace(edits=edits)


# Problems whose field keeps its default because its value did not convert.
_VALUE_PROBLEMS = frozenset({"invalid-value", "value-out-of-range", "unknown-enum-value"})


def _failed_fields(document: Document) -> tuple[FieldPath, ...]:
    """The fields of ``document`` whose values did not load (see ``LoadProblem.failed``)."""
    failed: list[FieldPath] = list(document.failed)
    for problem in document.problems:
        if problem.failed is not None:
            failed.append(problem.failed)
        elif problem.rule in _VALUE_PROBLEMS and problem.path and not problem.read:
            failed.append(problem.path)
    return tuple(failed)


def _follows(rule: Rule, path: FieldPath, failed: tuple[FieldPath, ...]) -> bool:
    """Whether a finding of ``rule`` at ``path`` only follows from a field that did not load:
    it is at or under that field, or the rule's findings follow from such fields anywhere."""
    for field in failed:
        if path[: len(field)] == field:
            return True
        # A list's element (`output_shape[1]`) is named by its list.
        named = next((part for part in reversed(field) if isinstance(part, str)), None)
        if rule.follows and named is not None and _named(named, rule.follows):
            return True
    return False


# In a rule's `follows`: any optimizer algorithm's field (a config's or a spec's oneof member).
ALGORITHM = "@algorithm"


def _named(name: str | int, follows: tuple[str, ...]) -> bool:
    if name in follows:
        return True
    if ALGORITHM in follows and isinstance(name, str):
        from tpuemb_cli.model import optimizers  # only once a field failed to load

        return (
            optimizers.algorithm(name) is not None
            or name == "custom"
            or (optimizers.of_spec(name) is not None)
        )
    return False


_CHANGE_CODES = frozenset(entry.code for entry in CHANGES)


def _enabled(settings: Settings, command: str) -> frozenset[str]:
    """The rules ``settings`` select for ``command``. For ``diff``, settings written for
    ``check`` must not turn the checkpoint gate off unseen: a ``select`` that names no kind of
    change leaves them all selected, and an ``ignore`` turns kinds off only with a selector
    that names kinds alone (``restore-error``, ``TE95``; not ``TE9`` or ``TE``, which name
    `check`'s rules too)."""
    enabled = settings.enabled()
    if command != "diff":
        return enabled
    from tpuemb_cli.engine.selectors import expand
    from tpuemb_cli.engine.settings import expand_within

    named = (expand(settings.select) | expand(settings.extend_select)) & _CHANGE_CODES
    ignored = expand_within(settings.ignore, _CHANGE_CODES)
    return frozenset((enabled - _CHANGE_CODES) | ((named or _CHANGE_CODES) - ignored))


class Engine:
    """Runs the rules ``settings`` select, with its severities and suppressions."""

    def __init__(self, settings: Settings | None = None, command: str = "check") -> None:
        """``command``: ``check`` runs the rules; ``diff`` judges changes (``judge_changes``),
        with the rules of the kinds of change."""
        self.settings = settings or Settings()
        self.command = command
        self.scope = command_codes(command)
        self.enabled = _enabled(self.settings, command) & self.scope
        self._entries = tuple(entry for entry in CATALOG if entry.code in self.enabled)
        self.superseded = frozenset(
            code for entry in self._entries if "spec" in entry.runs for code in entry.supersedes
        )
        self._loaded: dict[str, tuple[Rule, ...]] = {}
        self.config_use: ConfigUse | None = None
        # What failed unexpectedly in the last ``lint`` (a bug in tpuemb): where, and the
        # exception, whose traceback a caller may print.
        self.crashes: list[tuple[str, Exception]] = []

    def _rules(self, kind: str) -> tuple[Rule, ...]:
        """The enabled rules whose checks run on ``kind``, their modules imported on first use."""
        rules = self._loaded.get(kind)
        if rules is None:
            rules = tuple(load(entry.code) for entry in self._entries if kind in entry.runs)
            self._loaded[kind] = rules
        return rules

    def _stamp(
        self,
        rule: Entry | Rule,
        file: str,
        message: str,
        path: FieldPath,
        fix: str = "",
        position: Position | None = None,
        autofix: Fix | None = None,
    ) -> Finding:
        """A finding of ``rule``, at the severity the settings give it."""
        severity = self.settings.severity.get(rule.code, rule.severity)
        if not (message.isascii() and fix.isascii()):
            # A lone surrogate quoted from the input would fail every output: shown escaped.
            message, fix = escaped(message), escaped(fix)
        return Finding(file, rule.code, rule.name, severity, message, path, fix, position, autofix)

    def crashed(self, file: str, during: str, error: Exception) -> Finding:
        """An `internal-error` finding on ``file``: ``error`` was raised ``during`` something
        ("in rule ...", "while loading the file")."""
        from tpuemb_cli.rules.parse.internal_error import crashed

        violation = crashed(during, error)
        return self._stamp(
            BY_NAME["internal-error"], file, violation.message, violation.path, violation.fix
        )

    def _checked(
        self, rule: Rule, check: Callable[..., Iterable[Violation]], *args: Any
    ) -> Iterable[Violation]:
        """``check(*args)``'s violations; an exception in it is recorded instead, and the other
        rules still run. (Collected here rather than yielded through: a generator around every
        check of every file cost a clean file a quarter of its lint time.)"""
        try:
            return list(check(*args))
        except Exception as error:  # a bug in the rule: reported on the file, not raised
            self._crashed_in(rule, error)
            return ()

    def _crashed_in(self, rule: Rule, error: Exception) -> None:
        self.crashes.append((f"in rule {rule.code} ({rule.name})", error))

    def lint(
        self,
        document: Document,
        expected: Expected | None = None,
        facts: SpecFacts | None = None,
    ) -> list[Finding]:
        """Findings for ``document``; with ``expected`` (a compiled spec), drift findings too.
        ``facts``: what a spec compiles to, computed once for the document's every reader (the
        workspace passes the ones it keeps for the front end); a caller that has none gets the
        document's from ``facts_of``, here, once; facts of another spec raise ValueError.

        An unexpected exception in a rule (or in running the rules) is an `internal-error`
        finding, which no selection or suppression hides; ``crashes`` keeps the exceptions."""
        from tpuemb_cli.spec.facts import facts_for

        facts = facts_for(document, facts)
        self.crashes = []
        kept = self._lint(document, expected, facts)
        if self.crashes:
            done = set()
            for during, error in self.crashes:
                if during not in done:  # a rule that fails on each table: once
                    done.add(during)
                    kept.append(self.crashed(document.name, during, error))
            kept.sort(key=Finding.sort_key)
        return kept

    def _lint(
        self, document: Document, expected: Expected | None, facts: SpecFacts | None
    ) -> list[Finding]:
        findings: list[Finding] = []
        source_map = document.source_map
        failed = _failed_fields(document)

        def emit(rule: Rule, prefix: FieldPath, violation: Violation) -> None:
            # No position yet: found below, all at once, for the findings that are kept.
            path, autofix = prefix + violation.path, _under(prefix, violation.autofix)
            if failed and _follows(rule, path, failed):
                return  # a consequence of a field that did not load: its problem says why
            findings.append(
                self._stamp(
                    rule, document.name, violation.message, path, violation.fix, None, autofix
                )
            )

        for problem in document.problems:
            position = None
            if source_map is not None and problem.span is not None:
                position = source_map.position_of_span(problem.span)
            findings.append(
                self._stamp(
                    BY_NAME[problem.rule],
                    document.name,
                    problem.message,
                    problem.path,
                    problem.fix,
                    position,
                )
            )

        try:
            self._run_rules(document, expected, emit, facts)
        except Exception as error:  # outside any one rule (the spec compiler, a graph view)
            self.crashes.append(("while running the rules", error))
        return self._settle(document, findings)

    def judge_changes(self, document: Document, changes: Sequence[Placed]) -> list[Finding]:
        """The changes ``tpuemb diff`` found, as findings of their kinds' rules, through the
        settings of ``document`` (the new side: its selection, per-file ignores and
        suppressions, which acknowledge a change). A change placed in the old file (what the new
        one no longer has) can be acknowledged in the new one by its rule for the whole file
        (``file-ignore``) or by a configuration entry for its field."""
        findings = []
        commented = document.format == "text"
        shown = {"json": "JSON", "yaml": "YAML"}.get(document.format, document.format or "such")
        for change in changes:
            rule = BY_NAME[change.kind]
            if not commented:
                advice = _ACKNOWLEDGE_IN_SETTINGS
            elif change.file == document.name:
                advice = _ACKNOWLEDGE_HERE
            else:
                advice = _ACKNOWLEDGE_ELSEWHERE
            finding = self._stamp(
                rule,
                change.file,
                change.message,
                change.path,
                _with_help(
                    change.help,
                    advice.format(rule=rule.name, file=document.on_disk(), format=shown),
                ),
                change.position,
            )
            findings.append(
                finding._replace(change=Transition(change.table, change.old, change.new))
            )
        return self._settle(document, findings)

    def _settle(self, document: Document, findings: list[Finding]) -> list[Finding]:
        """``findings`` of ``document`` as the settings leave them: the selected ones, placed,
        without what suppressions cover, with the problems of the suppressions, sorted; those
        in an archive's member say which."""
        settled = self._kept(document, findings)
        if not document.member:
            return settled
        name, member = document.name, document.member
        return [f._replace(member=member) if f.file == name else f for f in settled]

    def _kept(self, document: Document, findings: list[Finding]) -> list[Finding]:
        source_map = document.source_map
        off = (
            self.settings.ignored_for(
                document.on_disk(), _CHANGE_CODES if self.command == "diff" else None
            )
            if self.settings.per_file_ignores
            else set()
        )
        selected = [f for f in findings if f.rule in self.enabled and f.rule not in off]
        name = document.name
        unplaced = [f.path for f in selected if f.position is None and f.file == name]
        if source_map is not None and unplaced:
            # All at once: a large text file's map then looks for these paths' spans only.
            source_map.locate(unplaced)
            selected = [
                f
                if f.position is not None or f.file != name
                else f._replace(position=source_map.position(f.path))
                for f in selected
            ]
        if not document.comments and not self.settings.suppress:
            selected.sort(key=Finding.sort_key)
            return selected  # nothing can be suppressed: skip loading the machinery
        from tpuemb_cli.engine import suppressions

        if self.config_use is None:
            self.config_use = suppressions.ConfigUse()
        kept, problems = suppressions.apply(
            selected, document, self.settings, self.enabled, self.config_use, self.scope
        )
        for refused in problems:
            if refused.code not in self.enabled or refused.code in off:
                continue
            # A suppression is this command's to judge when it names this command's rules (one
            # naming no known rule, both commands'); `check` and `diff` read the same comments.
            if refused.codes and not refused.codes & self.scope:
                continue

            assert source_map is not None  # suppression comments exist only in text
            violation = refused.violation
            kept.append(
                self._stamp(
                    BY_CODE[refused.code],
                    document.name,
                    violation.message,
                    violation.path,
                    violation.fix,
                    source_map.position_of_span(refused.span),
                    violation.autofix,
                )
            )
        kept.sort(key=Finding.sort_key)
        return kept

    def _run_rules(
        self, document: Document, expected: Expected | None, emit: Emit, facts: SpecFacts | None
    ) -> None:
        # The kind on the message's schema row decides which rules run: its `_run_<kind>`.
        message = document.message
        kind = kind_of(message) if message is not None else ""
        if kind:
            run: Callable[..., None] = getattr(self, f"_run_{kind}")
            run(message, emit, expected, facts)

    # One method per kind of document (``MessageType.kind``), each called with the message (typed
    # Any: each knows its type), the emitter, a compiled spec's expectations (for a config) and a
    # spec's facts.

    def _run_config(
        self, config: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        self._lint_config(config, emit, self.accelerator())
        if expected is not None:
            for rule in self._rules("drift"):
                assert rule.check_drift is not None
                for violation in self._checked(rule, rule.check_drift, config, expected):
                    emit(rule, (), violation)

    def _run_optimizer(
        self, params: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        for rule in self._rules("optimizer"):
            assert rule.check_optimizer is not None
            for violation in self._checked(rule, rule.check_optimizer, params, STANDALONE):
                emit(rule, (), violation)

    def _run_spec(
        self, spec: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        assert facts is not None  # a spec's, made by ``lint`` when its caller had none
        if spec.HasField("jax"):
            # jax-tpu-embedding's objects: JAX's rules; TensorFlow's (the spec's, and the config's
            # it would compile to) judge what TensorFlow does, which JAX does not.
            self._lint_jax_spec(spec, emit, facts)
            return
        self._lint_spec(spec, emit, facts)

    def _run_graph(
        self, graph: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        self._lint_graph(graph, (), emit)

    def _run_saved_model(
        self, saved_model: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        for index, meta_graph in enumerate(saved_model.meta_graphs):
            self._lint_graph(meta_graph.graph_def, ("meta_graphs", index, "graph_def"), emit)

    def _run_layouts(
        self, layouts: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        """SparseCore layouts: no rule runs on them (their load problems are their findings)."""

    def _run_jax(
        self, spec: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        """A JAX SparseCore EmbeddingSpecProto: the JAX rules, with paths from its root."""
        for rule in self._rules("jax"):
            assert rule.check_jax is not None
            for violation in self._checked(rule, rule.check_jax, spec):
                emit(rule, (), violation)
        tpu = self.accelerator()
        if tpu is not None:
            self._lint_jax_memory(spec, emit, tpu.chip)

    def _run_keras(
        self, model: Any, emit: Emit, expected: Expected | None, facts: SpecFacts | None
    ) -> None:
        """A Keras-RS model: the Keras rules, then each DistributedEmbedding layer's spec (what
        its backend's conversion hands the SparseCore library) through that backend's rules,
        each finding placed at the layer's field it comes from, unless a Keras rule reports the
        same mistake as Keras-RS shows it. With TensorFlow on a chip whose TPU embedding
        feature is not known (v5e, TPU7x), the specs are not linted: which library's rules
        apply is what is not known."""
        from tpuemb_cli.spec.keras_spec import convert, layer_path

        topology = self.keras_topology(model)
        for rule in self._rules("keras"):
            assert rule.check_keras is not None
            for violation in self._checked(rule, rule.check_keras, model, topology):
                emit(rule, (), violation)
        superseded = frozenset(
            code for entry in self._entries if "keras" in entry.runs for code in entry.supersedes
        )
        if topology.backend == "tensorflow" and not topology.embedding_feature():
            # Whether TPUEmbedding or TPUEmbeddingV2 judges the tables depends on the chip's
            # embedding feature, which no cited source gives for this chip: no verdict on it.
            return
        library = topology.library()
        unplaced = topology.global_device_count < 1
        for index, layer in enumerate(model.layers):
            converted = convert(layer, topology)
            if not converted.spec.features:
                continue  # nothing on the SparseCores

            def placed(
                rule: Rule,
                prefix: FieldPath,
                violation: Violation,
                converted: Any = converted,
                index: int = index,
            ) -> None:
                if rule.code in superseded:
                    return
                path = prefix + violation.path
                if unplaced and path[:1] == ("jax",):
                    return  # the devices no --tpu gave: tpuemb's zeros, not the model's mistake
                message = f"in what Keras-RS hands {library} ({render(path)}): {violation.message}"
                at = layer_path(converted, index, path)
                emit(rule, (), Violation(at, message, violation.fix))

            if topology.backend == "jax":
                from tpuemb_cli.spec.facts import SpecFacts

                # The stacking the conversion worked out, the rules' too.
                layer_facts = SpecFacts(converted.spec, converted.stacking)
                self._lint_jax_spec(converted.spec, placed, layer_facts)
            else:
                from tpuemb_cli.spec.facts import SpecFacts

                # The layer's spec is a document of its own: its facts, made once here.
                self._lint_spec(converted.spec, placed, SpecFacts(converted.spec))

    def keras_topology(self, model: Any) -> Any:
        """What a Keras-RS model's layers convert for: the model's ``target`` when its caller
        gave one (live objects), else the settings' backend (``--keras-backend``,
        ``keras-backend``) and TPU (``--tpu``, ``tpu``): its devices and SparseCores per device
        when known."""
        from tpuemb_cli.spec.keras_spec import Topology

        if model.HasField("target"):
            target = model.target
            return Topology(
                target.backend or self.settings.keras_backend,
                target.global_device_count,
                target.num_sc_per_device,
                target.accelerator,
            )
        tpu = self.accelerator()
        if tpu is None:
            return Topology(self.settings.keras_backend)
        return Topology(
            self.settings.keras_backend,
            tpu.devices or 0,
            tpu.chip.sparse_cores_per_device.value or 0,
            tpu.chip.name,
        )

    def unused_config_suppressions(self) -> list[Finding]:
        """Configuration suppressions whose files were linted but that suppressed nothing."""
        rule = BY_CODE["TE902"]
        if rule.code not in self.enabled or self.config_use is None:
            return []
        from tpuemb_cli.rules.suppression.unused_suppression import unused_entry

        found = []
        for settings, index in self.config_use.unused():
            entry = settings.suppress[index]
            at: FieldPath = (*settings.table_path, "suppress", index)
            violation = unused_entry(entry.rules, entry.file, entry.field, at)
            found.append(
                self._stamp(
                    rule, str(settings.path), violation.message, violation.path, violation.fix
                )
            )
        return found

    def _lint_graph(self, graph: Message, prefix: FieldPath, emit: Emit) -> None:
        from tpuemb_cli.rules.lib.embedding_ops import CONFIG_OPS, config_of
        from tpuemb_cli.rules.lib.graph import GraphView

        view = GraphView(graph, prefix)
        for rule in self._rules("graph"):
            assert rule.check_graph is not None
            for violation in self._checked(rule, rule.check_graph, view):
                emit(rule, (), violation)
        # Each embedding op's config passes the config rules, its findings nested under the node.
        for node in view.nodes(*sorted(CONFIG_OPS)):
            config = config_of(node)
            if config is None:
                continue
            at = node.path + ("attr", "config")

            def nested(
                rule: Rule,
                inner: FieldPath,
                violation: Violation,
                at: FieldPath = at,
                label: str = node.label,
            ) -> None:
                where = render(inner + violation.path) or "(root)"
                message = f"{label}, config field `{where}`: {violation.message}"
                emit(rule, (), Violation(at, message, violation.fix))

            self._lint_config(config, nested, self.accelerator())

    def _lint_jax_spec(self, spec: EmbeddingSpec, emit: Emit, facts: SpecFacts) -> None:
        # One set of facts per spec, its caller's: stacked once, for every rule.
        assert facts.spec is spec
        for rule in self._rules("jax_spec"):
            assert rule.check_jax_spec is not None
            for violation in self._checked(rule, rule.check_jax_spec, spec, facts):
                emit(rule, (), violation)

    def _lint_spec(self, spec: EmbeddingSpec, emit: Emit, facts: SpecFacts) -> None:
        # One set of facts per spec, its caller's: compiled (and laid out) once, for every rule.
        assert facts.spec is spec
        for rule in self._rules("spec"):
            assert rule.check_spec is not None
            for violation in self._checked(rule, rule.check_spec, spec, facts):
                emit(rule, (), violation)
        # The compiled config goes through the config rules too; each finding is placed at the
        # spec field it comes from, unless a spec rule reports the same mistake better, or the
        # rule does not judge what a SparseCore spec compiles to (the catalog's on_sparsecore).
        compiled = facts.compiled
        superseded = self.superseded
        sparsecore = facts.sparsecore

        def placed(rule: Rule, prefix: FieldPath, violation: Violation) -> None:
            if rule.code in superseded or (sparsecore and not rule.on_sparsecore):
                return
            path = compiled.spec_path(prefix + violation.path)
            message = f"in the compiled config ({render(prefix + violation.path)}): "
            emit(rule, (), Violation(path, message + violation.message, violation.fix))

        tpu = self.accelerator(spec.topology.accelerator)
        if sparsecore:  # TPUEmbeddingV2 allocates stacked tables, not the compiled config's
            if tpu is not None:
                self._lint_sparsecore_memory(facts, emit, tpu.chip)
            tpu = None
        elif tpu is not None:  # the slice's size is held against the spec's topology by TE724
            tpu = tpu._replace(size=None)
        self._lint_config(compiled.config, placed, tpu)

    def chip(self, accelerator: str = "") -> Chip | None:
        """The chip a config runs on (``accelerator``'s)."""
        found = self.accelerator(accelerator)
        return found.chip if found is not None else None

    def accelerator(self, accelerator: str = "") -> Accelerator | None:
        """The TPU a config runs on: ``--tpu``, else a spec's ``topology.accelerator`` (an
        unknown one is a spec finding, and no TPU), else the settings' ``tpu``."""
        name = self.settings.tpu
        if accelerator and not self.settings.tpu_forced:
            name = accelerator
        if not name:
            return None  # the chip table is imported only when a chip is named
        from tpuemb_cli.model.accelerators import UnknownTpu, parse

        try:
            return parse(name)
        except UnknownTpu:
            return None

    def _lint_memory(self, config: TPUEmbeddingConfiguration, emit: Emit, tpu: Accelerator) -> None:
        rules = self._rules("memory")
        chip = tpu.chip
        if not rules or chip.hbm_per_core is None or config.num_tensor_cores < 1:
            return  # no rule to run, no HBM to compare with, or no cores (TE502 says so)
        from tpuemb_cli.model.memory import model

        fit = Fit(chip, model(config), tpu)
        for rule in rules:
            assert rule.check_memory is not None
            for violation in self._checked(rule, rule.check_memory, config, fit):
                emit(rule, (), violation)

    def _lint_sparsecore_memory(self, facts: SpecFacts, emit: Emit, chip: Chip) -> None:
        """The memory rules on what TPUEmbeddingV2 allocates: the stacked tables and slot
        variables on each chip (nothing when the spec cannot be laid out: other rules say why)."""
        rules = self._rules("memory")
        if not rules or chip.hbm_bytes.value is None:
            return
        memory = facts.sparsecore_memory
        if memory is None:
            return
        fit = Fit(chip, memory)
        config = facts.compiled.config
        for rule in rules:
            assert rule.check_memory is not None
            for violation in self._checked(rule, rule.check_memory, config, fit):
                emit(rule, (), violation)

    def _lint_jax_memory(self, spec: Any, emit: Emit, chip: Chip) -> None:
        """The memory rules on what jax-tpu-embedding allocates on each device: stacked variables
        and input buffers (nothing when the chip's HBM or SparseCores per device are not known,
        or the stacks' SparseCores are not whole devices of it: `explain --memory` says why)."""
        rules = self._rules("memory")
        hbm, per_device = chip.hbm_per_core, chip.sparse_cores_per_device.value
        if not rules or hbm is None or per_device is None:
            return
        from tpuemb_cli.spec.jax_memory import model

        memory = model(spec, per_device)
        if memory.devices is None:
            return
        # No TensorFlow config, and no slice (fit.tpu): the rules read the JAX model only.
        config = TPUEmbeddingConfiguration()
        fit = Fit(chip, memory)
        for rule in rules:
            assert rule.check_memory is not None
            for violation in self._checked(rule, rule.check_memory, config, fit):
                emit(rule, (), violation)

    def _lint_config(
        self, config: TPUEmbeddingConfiguration, emit: Emit, tpu: Accelerator | None = None
    ) -> None:
        # Most tables share their optimizer settings, so optimizer rules run once per distinct
        # OptimizationParameters and their violations are placed under every table that has it.
        site = Site(in_config=True, trains=config.mode in TRAINING_MODES)
        groups: dict[bytes, list[int]] = {}
        tables = config.table_descriptor
        for index, table in enumerate(tables):
            if table.HasField("optimization_parameters"):
                key = table.optimization_parameters.SerializeToString(deterministic=True)
                groups.setdefault(key, []).append(index)
        # The try is written out in these two loops, not through ``_checked``: they run every
        # rule on every file, and a call and a list per rule showed in the many-files benchmark.
        # (A rule that fails half-way keeps the violations it yielded before failing.)
        for indexes in groups.values():
            params = tables[indexes[0]].optimization_parameters
            for rule in self._rules("optimizer"):
                try:
                    for violation in rule.check_optimizer(params, site):  # type: ignore[misc]
                        for index in indexes:
                            emit(rule, (*_TABLE, index, *_OPTIMIZER), violation)
                except Exception as error:  # a bug in the rule: reported on the file
                    self._crashed_in(rule, error)
        for rule in self._rules("config"):
            try:
                for violation in rule.check_config(config):  # type: ignore[misc]
                    emit(rule, (), violation)
            except Exception as error:  # a bug in the rule: reported on the file
                self._crashed_in(rule, error)
        if tpu is not None:
            self._lint_memory(config, emit, tpu)
