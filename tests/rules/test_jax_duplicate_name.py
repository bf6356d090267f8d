from pathlib import Path

from tests.jax_specs import check, one_finding, replaced


def test_two_stacks_of_one_name(tmp_path: Path) -> None:
    text = replaced(('stack_name: "ads"', 'stack_name: "video_user"'))
    assert one_finding(tmp_path, text, "TE697") == (
        'PATH:52:3: TE697 [error] stack 1 is named "video_user", as stack 0: the library keeps the '
        "stacked variables by stack name, so both stacks are read from one variable"
    )


def test_a_table_name_twice_in_one_stack(tmp_path: Path) -> None:
    text = replaced(('table_name: "user"', 'table_name: "video"'))
    assert one_finding(tmp_path, text, "TE697") == (
        'PATH:32:5: TE697 [error] table "video" of stack "video_user" has the name of table 0 of '
        'stack "video_user": the library returns the unstacked tables by name, and keeps only '
        "one of them"
    )


def test_a_table_name_in_two_stacks(tmp_path: Path) -> None:
    text = replaced(('table_name: "ads"', 'table_name: "user"'))
    assert one_finding(tmp_path, text, "TE697") == (
        'PATH:60:5: TE697 [error] table "user" of stack "ads" has the name of table 1 of stack '
        '"video_user": the library returns the unstacked tables by name, and keeps only one of '
        "them"
    )


def test_a_table_named_as_a_stack_is_no_collision(tmp_path: Path) -> None:
    # The library's own layout: a table alone is a stack of its name ("ads" in "ads").
    exit_code, stdout, _, _ = check(tmp_path, replaced(), "--select", "TE697")
    assert (exit_code, "TE697" in stdout) == (0, False)


def test_two_stacks_named_nothing(tmp_path: Path) -> None:
    # Issue 36: an empty name was let pass, but both stacks are the variable keyed "".
    text = replaced(
        ('stack_name: "video_user"', 'stack_name: ""'), ('stack_name: "ads"', 'stack_name: ""')
    )
    assert one_finding(tmp_path, text, "TE697") == (
        'PATH:52:3: TE697 [error] stack 1 is named "", as stack 0: the library keeps the '
        "stacked variables by stack name, so both stacks are read from one variable"
    )


def test_two_tables_named_nothing(tmp_path: Path) -> None:
    text = replaced(
        ('table_name: "video"', 'table_name: ""'), ('table_name: "ads"', 'table_name: ""')
    )
    assert one_finding(tmp_path, text, "TE697") == (
        'PATH:60:5: TE697 [error] table 0 of stack "ads" has the name of table 0 of stack '
        '"video_user": the library returns the unstacked tables by name, and keeps only one of '
        "them"
    )
