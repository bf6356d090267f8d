"""The engine: runs the selected rules over a loaded document and stamps what they find.

Rules yield Violations (a field path, a message, a fix). The engine adds the rule's code, name
and effective severity, turns the field path into a position through the document's source map,
drops what ``per-file-ignores`` and suppressions cover, reports the suppressions that are refused
or unused, and sorts. Parse problems from the loader come in the same way, under the parse rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tpuemb_cli.engine.settings import Settings
from tpuemb_cli.frontends import lint_of, settle_of
from tpuemb_cli.load import Document
from tpuemb_cli.load.limits import escaped
from tpuemb_cli.model.findings import Finding, Position, Transition, Violation
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.pbcompat import is_map_entry, is_repeated
from tpuemb_cli.model.schema import kind_of
from tpuemb_cli.rules import BY_CODE, BY_NAME, CATALOG, CHANGES, Entry, command_codes, load
from tpuemb_cli.rules.base import Fit, Measured, Rule

if TYPE_CHECKING:
    from google.protobuf.message import Message

    from tpuemb_cli.compat.kinds import Placed
    from tpuemb_cli.engine.suppressions import ConfigUse
    from tpuemb_cli.model.accelerators import Accelerator
    from tpuemb_cli.model.chips import Chip
    from tpuemb_cli.model.edits import Fix
    from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
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


# The most messages ``_names_set`` reads before giving up: enough for a config of a few dozen
# tables, whose start-up it spares the rules it has no field for; a larger one lints long
# enough for every rule's import not to count, and its walk would cost more than they do.
_WALKED = 256


def _names_set(message: Message) -> frozenset[str] | None:
    """The names of the fields set anywhere in ``message``; None when it holds more than
    ``_WALKED`` messages."""
    names: set[str] = set()
    waiting = [message]
    walked = 0
    while waiting:
        walked += 1
        if walked > _WALKED:
            return None
        for field, value in waiting.pop().ListFields():
            names.add(field.name)
            if field.message_type is None:
                continue
            if is_map_entry(field):
                names.update(("key", "value"))
                if field.message_type.fields_by_name["value"].message_type is not None:
                    waiting.extend(value.values())
            elif is_repeated(field):
                waiting.extend(value)
            else:
                waiting.append(value)
    return frozenset(names)


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
        self._loaded: dict[tuple[str, str | None, frozenset[str] | None], tuple[Rule, ...]] = {}
        self._needs: dict[str, frozenset[str]] = {}
        self._superseded: dict[str, frozenset[str]] = {}
        self.config_use: ConfigUse | None = None
        # What failed unexpectedly in the last ``lint`` (a bug in tpuemb): where, and the
        # exception, whose traceback a caller may print.
        self.crashes: list[tuple[str, Exception]] = []

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
        # The kind on the message's schema row decides which front-end lints it.
        message = document.message
        kind = kind_of(message) if message is not None else ""
        if kind:
            self.run(kind, message, emit, expected, facts)

    def run(
        self,
        kind: str,
        message: Any,
        emit: Emit,
        expected: Expected | None = None,
        facts: SpecFacts | None = None,
    ) -> None:
        """Lints ``message``, a document of ``kind``, as the front-end that owns the kind does
        (its ``lint_<kind>``): a front-end's own documents, or another's kind it hands on (a
        Keras-RS layer's spec, judged by its backend's library)."""
        lint = lint_of(kind)
        if lint is None:
            raise ValueError(f"no front-end lints documents of kind {kind!r}")
        lint(self, message, emit, expected, facts)

    def settle(self, message: Message) -> None:
        """Writes into ``message`` what the settings decide of how it is read, where its
        front-end says (a Keras-RS model's target: the backend and TPU its layers convert for),
        before views and comparisons read it."""
        settle = settle_of(kind_of(message))
        if settle is not None:
            settle(self, message)

    def rules(
        self, kind: str, variant: str | None = None, message: Message | None = None
    ) -> tuple[Rule, ...]:
        """The enabled rules whose checks run on ``kind``, their modules imported on first use;
        with ``variant`` (its catalog rows' ``variant``: an optimizer's algorithm, "" for none),
        only those that check documents of that variant: the rules of every variant and the
        rules of this one. With ``message``, the one the checks are given, not the rules that
        need a field it does not set (their catalog rows' ``needs``)."""
        needed = self._needed(kind)
        present = _names_set(message) if message is not None and needed else None
        key = (kind, variant, None if present is None else needed & present)
        rules = self._loaded.get(key)
        if rules is None:
            rules = tuple(
                load(entry.code)
                for entry in self._entries
                if kind in entry.runs
                and (variant is None or entry.variant in ("", variant))
                and (present is None or not entry.needs or not present.isdisjoint(entry.needs))
            )
            self._loaded[key] = rules
        return rules

    def _needed(self, kind: str) -> frozenset[str]:
        """The fields the enabled rules of ``kind`` need (their ``needs``), all together."""
        found = self._needs.get(kind)
        if found is None:
            found = frozenset(
                name for entry in self._entries if kind in entry.runs for name in entry.needs
            )
            self._needs[kind] = found
        return found

    def superseded_by(self, kind: str) -> frozenset[str]:
        """The codes of the rules that the enabled rules of ``kind`` report better (their
        ``supersedes``): a spec's, over the config's it compiles to; a Keras model's, over its
        layers' specs'."""
        found = self._superseded.get(kind)
        if found is None:  # once per kind: a spec's are asked for on every spec linted
            found = frozenset(
                code for entry in self._entries if kind in entry.runs for code in entry.supersedes
            )
            self._superseded[kind] = found
        return found

    def checked(
        self, rule: Rule, check: Callable[..., Iterable[Violation]], *args: Any
    ) -> Iterable[Violation]:
        """``check(*args)``'s violations; an exception in it is recorded instead, and the other
        rules still run. (Collected here rather than yielded through: a generator around every
        check of every file cost a clean file a quarter of its lint time.)"""
        try:
            return list(check(*args))
        except Exception as error:  # a bug in the rule: reported on the file, not raised
            self.crashed_in(rule, error)
            return ()

    def crashed_in(self, rule: Rule, error: Exception) -> None:
        """Records that ``rule`` raised ``error`` (a bug in it): an `internal-error` finding."""
        self.crashes.append((f"in rule {rule.code} ({rule.name})", error))

    def fit(self, config: TPUEmbeddingConfiguration, fit: Fit, emit: Emit) -> None:
        """The memory rules on ``fit`` (a chip and a front-end's memory model of what it
        allocates), with ``config`` (a TensorFlow config, or an empty one)."""
        for rule in self.rules("memory"):
            assert rule.check_memory is not None
            for violation in self.checked(rule, rule.check_memory, config, fit):
                emit(rule, (), violation)

    def measured(self, measured: Measured, emit: Emit) -> None:
        """The statistics rules on ``measured`` (a document's stacks beside the statistics the
        settings give, which its front-end paired up)."""
        for rule in self.rules("stats"):
            assert rule.check_stats is not None
            for violation in self.checked(rule, rule.check_stats, measured):
                emit(rule, (), violation)

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

    def for_tpu(self, name: str) -> Engine:
        """This engine as ``--tpu name`` would make it: the same rules and settings, the TPU
        forced (the sweep asks the memory model of each slice through one)."""
        import copy

        engine = copy.copy(self)
        engine.settings = self.settings._replace(tpu=name, tpu_forced=True)
        return engine

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
