from tests.helpers import CLEAN, lint, located, of

ZERO = CLEAN.replace("constant: 0.05 }", "constant: 0 }")  # TE105 on line 7


def test_bare_ignore_is_refused_and_hides_nothing() -> None:
    text = ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore")
    assert located(text, "TE901") == [("", 7, 36)]
    assert located(text, "TE105") != []
    (finding,) = of(lint(text), "TE901")
    assert "without rules would hide every finding" in finding.message


def test_unknown_rule_and_missing_reason() -> None:
    unknown = ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore[TE999] why")
    assert "unknown rule 'TE999'" in of(lint(unknown), "TE901")[0].message
    no_reason = ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore[TE105]")
    assert "gives no reason" in of(lint(no_reason), "TE901")[0].message
    assert located(no_reason, "TE105") != []


def test_unknown_rule_name_suggests_the_nearest_rule() -> None:
    text = ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore[zero-learnig-rate] why")
    assert located(text, "TE901") == [("", 7, 36)]
    (finding,) = of(lint(text), "TE901")
    assert finding.message == (
        "unknown rule 'zero-learnig-rate' in a suppression (did you mean `zero-learning-rate`?); "
        "it is not applied"
    )
    assert finding.fix == "use `zero-learning-rate`"
    (code,) = of(lint(text.replace("zero-learnig-rate", "TE999")), "TE901")
    assert (code.message, code.fix) == (
        "unknown rule 'TE999' in a suppression; it is not applied",
        "use a code (TE406) or name (unused-table) from `tpuemb rules`",
    )


def test_file_ignore_below_the_first_field() -> None:
    text = CLEAN + "# tpuemb: file-ignore[TE406] later\n"
    assert located(text, "TE901") == [("", 15, 1)]


def test_near_miss_valid_suppression() -> None:
    text = ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore[TE105] frozen on purpose")
    assert located(text, "TE901") == []
    assert located(text, "TE105") == []
