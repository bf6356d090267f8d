"""The name a user probably meant, when they wrote one tpuemb does not know.

One function for every place a name can be unknown -- a field or an enum value in any encoding, a
key of the settings, a rule in a selection or a suppression, a message type -- so that they all
suggest alike: names are compared in one spelling (``words``: `vocabularySize`, `VocabularySize`
and `vocabulary-size` are all `vocabulary_size`), then through a table of known other names
(``aliases``, which the caller gives), then by closeness (difflib's ratio). Nothing is suggested
when nothing is close, or when two names are equally close: a guess between two is no help.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# difflib's ratio a name must reach: 0.75 lets one or two letters of a long name be wrong
# (`learning_rte`, `vocabulary_sise`) but not a word (`momentum` for `adagrad_momentum` is 0.67).
CUTOFF = 0.75

# Between a lower letter or digit and an upper one (`vocabularySize`), and inside a run of capitals
# before a word (`HTTPServer`): where lowerCamelCase and PascalCase put an underscore.
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def words(name: str) -> str:
    """``name`` in lower snake_case, whatever its style: `vocabularySize`, `VocabularySize`,
    `vocabulary-size` and `VOCABULARY_SIZE` are all `vocabulary_size`; `SGD` is `sgd`."""
    return _HUMP.sub("_", name.strip()).lower().replace("-", "_").replace(" ", "_")


def nearest(
    given: str,
    known: Iterable[str],
    aliases: Mapping[str, str] | None = None,
    cutoff: float = CUTOFF,
) -> str | None:
    """The name of ``known`` (as it is spelled there) that ``given`` most probably means, or None.

    ``aliases`` maps other names people write, in ``words`` spelling, to a name of ``known``: a
    name certain to mean the same thing, however unlike it looks (`sgd` for
    `stochastic_gradient_descent`). Without an alias, the closest name by difflib's ratio, if it
    reaches ``cutoff`` and no other name is as close.
    """
    written = words(given)
    by_words: dict[str, str] = {}
    for name in known:
        by_words.setdefault(words(name), name)
    if written in by_words:
        return by_words[written]
    if aliases and aliases.get(written) in by_words.values():
        return aliases[written]
    import difflib  # only when a name is unknown: a clean run does not pay for it

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(written)
    scores: list[tuple[float, str]] = []
    for spelled, name in by_words.items():
        matcher.set_seq1(spelled)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff:
                scores.append((ratio, name))
    scores.sort(key=lambda score: -score[0])
    if not scores or (len(scores) > 1 and scores[0][0] == scores[1][0]):
        return None
    return scores[0][1]


def did_you_mean(name: str | None) -> str:
    """The words a message ends with when there is a suggestion ("" when there is none)."""
    return f"; did you mean `{name}`?" if name else ""
