"""Problems the loader finds while reading an input: reported as findings of the parse rules.

Imported when a problem is found, not before: a clean file does not pay for this module.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, NamedTuple

from google.protobuf.descriptor import Descriptor, EnumDescriptor

from tpuemb_cli.load.limits import INT_DIGITS, decimal_digits, shown
from tpuemb_cli.load.source import Span
from tpuemb_cli.model.paths import FieldPath


class LoadProblem(NamedTuple):
    """A problem found while parsing.

    ``rule`` is the kebab-case name of a parse rule (see ``tpuemb_cli.rules``); the engine stamps
    its code and severity. ``span`` is where in the text, when the input is text; ``path`` is the
    field the problem belongs to (the root when the parser could not tell).
    """

    rule: str
    message: str
    path: FieldPath = ()
    span: Span | None = None
    fix: str = ""
    # A fatal problem stops the parse: the message is incomplete and rules do not run on it.
    fatal: bool = False
    # The field whose value did not load: the field itself for a value that does not convert,
    # the field meant for a misspelt name that has a close match. Findings that only follow
    # from its absence give way to this problem (the engine drops them).
    failed: FieldPath | None = None
    # Whether the value at ``path`` was read, and the problem is how it fits the rest (a
    # Keras layer's features against its saved inputs): nothing gives way to it.
    read: bool = False


# The messages both parsers (text format, and the JSON/YAML mapping) give for the same mistake,
# written once. Each returns the whole problem; the text parser adds the span, which the mapping
# converter cannot know (its positions are found later, by field path).


def unknown_field(
    descriptor: Any,
    name: str,
    path: FieldPath,
    span: Span | None = None,
    json_names: bool = False,
) -> LoadProblem:
    """``name`` is no field of ``descriptor``. ``json_names``: the encoding also takes fields by
    their lowerCamelCase JSON names (JSON, YAML), so a suggestion is spelled as ``name`` is."""
    # Imported here: a file without unknown fields does not pay for them.
    from tpuemb_cli.load import aliases
    from tpuemb_cli.model.nearest import did_you_mean, nearest, words

    reserved = _reserved_names(descriptor)
    if name in reserved or words(name) in reserved:
        message = (
            f"`{name}` was removed from {descriptor.name}: TensorFlow reserved the name and "
            "rejects it"
        )
        return LoadProblem("unknown-field", message, path, span, f"delete `{name}`")
    close = nearest(name, list(descriptor.fields_by_name), aliases.of(descriptor.full_name))
    message = f"{descriptor.name} has no field `{name}`"
    if close is None:
        known = ", ".join(f.name for f in descriptor.fields)
        fix = f"fields of {descriptor.name}: {known}" if known else "it has no fields"
        return LoadProblem("unknown-field", message, path, span, fix)
    spelled = _spelled(close, name, descriptor, json_names)
    how = aliases.note(descriptor.full_name, words(name), close)
    fix = f"use `{spelled}`" + (f" ({how})" if how else "")
    # The field meant: what follows from its absence gives way to this problem.
    meant = path[:-1] + (close,) if path and path[-1] == name else None
    return LoadProblem(
        "unknown-field", message + did_you_mean(spelled), path, span, fix, failed=meant
    )


# lowerCamelCase, as protobuf's JSON names are: one lower word, then capitalised ones or digits.
# Compiled by ``re`` when an unknown field is first reported, not at start-up.
_CAMEL = r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+"


def _spelled(field: str, written: str, descriptor: Any, json_names: bool) -> str:
    """``field`` as the user would write it: its JSON name when they wrote lowerCamelCase."""
    if not (json_names and re.fullmatch(_CAMEL, written)):
        return field
    json_name: str = descriptor.fields_by_name[field].json_name
    return json_name


@cache
def _reserved_names(descriptor: Descriptor) -> frozenset[str]:
    from google.protobuf import descriptor_pb2  # only when an unknown field is found

    proto = descriptor_pb2.DescriptorProto()
    descriptor.CopyToProto(proto)
    return frozenset(proto.reserved_name)


def oneof_conflict(
    owner: str, oneof: str, name: str, other: str, path: FieldPath, span: Span | None = None
) -> LoadProblem:
    """``name`` is given while ``other``, of the same oneof of the message ``owner``, is set."""
    return LoadProblem(
        "oneof-conflict",
        f"`{name}` and `{other}` are both set, but they are members of the oneof `{oneof}` of "
        f"{owner}: only one may be set",
        path,
        span,
        f"keep one of `{other}` and `{name}`",
    )


def not_an_enum_value(
    enum: EnumDescriptor,
    given: str,
    quote: str,
    path: FieldPath = (),
    rule: str = "unknown-enum-value",
) -> LoadProblem:
    """``given`` names no value of ``enum``. ``quote``: how the input writes it, a backtick for
    a text-format word, a double quote for a JSON string."""
    from tpuemb_cli.model.nearest import did_you_mean, nearest  # only when a value is bad

    names = [v.name for v in enum.values]
    # Enums have few values, with short names: a looser cutoff than for fields (`TRAIN`).
    close = nearest(given, names, cutoff=0.6)
    return LoadProblem(
        rule,
        f"{quote}{shown(given)}{quote} is not a value of {enum.full_name.split('.', 2)[-1]}"
        + did_you_mean(close),
        path,
        fix=f"use `{close}`" if close else f"use one of: {', '.join(names)}",
    )


def not_a_valid_value(
    written: str,
    name: str,
    expected: str,
    path: FieldPath = (),
    *,
    reason: str | None = None,
    fix: str | None = None,
    rule: str = "invalid-value",
) -> LoadProblem:
    """``written`` (as the input spells it) does not convert to the field ``name``'s type,
    described by ``expected``; ``reason``: why, when the converter said."""
    message = f"`{shown(written)}` is not a valid value for `{name}` ({expected})"
    if reason is not None:
        message += f": {reason}"
    return LoadProblem(rule, message, path, fix=f"give `{name}` {expected}" if fix is None else fix)


def number_too_long(written: str, span: Span | None = None, path: FieldPath = ()) -> LoadProblem:
    """The decimal integer ``written`` has more digits than Python reads (``limits``)."""
    return LoadProblem(
        "value-out-of-range",
        f"the number `{written.strip()[:20]}...` has {decimal_digits(written):,} digits: no "
        f"field holds a number this long (a 64-bit integer has at most 20), and more than "
        f"{INT_DIGITS:,} digits are not read at all",
        path,
        span,
        "write the value the field needs",
    )


def lone_surrogate(written: str, escape: str, span: Span) -> LoadProblem:
    """The string ``written`` (as the input spells it) holds a lone surrogate, ``escape``."""
    return LoadProblem(
        "invalid-value",
        f"the string {shown(written)} holds `{escape}`, half of a UTF-16 surrogate pair and not "
        "a character: protobuf refuses it (read here as U+FFFD)",
        span=span,
        fix="write the character itself, or both halves of its pair (`\\ud83d\\ude00` is U+1F600)",
    )
