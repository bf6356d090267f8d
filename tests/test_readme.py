"""The README is what users get: its sample outputs are what the shipped examples produce, and
every command, flag, `make` target, CI step and dependency it names exists."""

from __future__ import annotations

import os
import pty
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.cli.main import COMMANDS

ROOT = Path(__file__).parent.parent
# The README, then the pages its depth moved to (issue 38: README <= 300 lines): each claim is
# tested where it now lives, as when it was the README's.
MOVED = ("usage", "specs", "checkpoints", "graphs", "configuration", "editor", "python-api")
PAGES = [ROOT / "README.md"] + [ROOT / "docs" / f"{name}.md" for name in (*MOVED, "development")]
README = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
FRONT = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^( *)```[^\n]*\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)
ELIDED = "..."


class Sample(NamedTuple):
    """A `$ tpuemb ...` line of the README and the output it shows under it."""

    command: str
    output: list[str]


def _samples(readme: str) -> list[Sample]:
    samples = []
    for indent, body in FENCE.findall(readme):
        lines = [line[len(indent) :] for line in body.splitlines()]
        for index, line in enumerate(lines):
            if not line.startswith("$ tpuemb "):
                continue
            end = next(
                (i for i in range(index + 1, len(lines)) if lines[i].startswith("$ ")),
                len(lines),
            )
            samples.append(Sample(line[2:], lines[index + 1 : end]))
    return samples


SAMPLES = _samples(README)


def _run(command: str, terminal: bool = False) -> subprocess.CompletedProcess[str]:
    """``command`` (``tpuemb ...``) as a user runs it at the repository root, without colour
    (NO_COLOR); ``terminal``: its standard output is a terminal (a pseudo-terminal), so the
    format is the one a terminal gets (``full``), else a pipe (``concise``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TPUEMB_")}
    env.pop("GITHUB_ACTIONS", None)
    env["NO_COLOR"] = "1"
    argv = [sys.executable, "-m", "tpuemb_cli", *shlex.split(command)[1:]]
    if not terminal:
        return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    code = process.wait()
    # The terminal's line discipline writes each newline as CR LF.
    stdout = b"".join(chunks).decode().replace("\r\n", "\n")
    return subprocess.CompletedProcess(argv, code, stdout, stderr)


def _matches(shown: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` is ``shown`` with each `...` line standing for any lines (none too):
    the shown lines appear in order, contiguous between elisions, anchored at both ends."""
    pattern = "".join(r"(?:.*\n)*?" if line == ELIDED else re.escape(line + "\n") for line in shown)
    return re.fullmatch(pattern, "".join(line + "\n" for line in printed)) is not None


def test_the_readme_has_samples() -> None:
    commands = [sample.command for sample in SAMPLES]
    assert "tpuemb check examples/" in commands
    assert "tpuemb check examples/ --statistics" in commands
    assert "tpuemb explain examples/adam_optimizer.pbtxt" in commands
    assert all(sample.output for sample in SAMPLES), "a sample with no output"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda sample: sample.command)
@pytest.mark.slow
def test_each_sample_is_what_the_command_prints(sample: Sample) -> None:
    # What a terminal shows: the README's reader types the command into one.
    result = _run(sample.command, terminal=True)
    assert "Traceback" not in result.stderr
    printed = result.stdout.splitlines()
    assert _matches(sample.output, printed), "\n".join(
        ["README shows:", *sample.output, "", "the command prints:", *printed]
    )


def test_the_elision_matching_is_strict() -> None:
    printed = ["a", "b", "c", "d"]
    assert _matches(["a", ELIDED, "d"], printed)
    assert _matches(["a", "b", ELIDED, "c", "d"], printed)
    assert _matches(["a", "b", "c", "d"], printed)
    assert not _matches(["a", "b", "c"], printed)  # no elision: nothing may be left out
    assert not _matches(["a", ELIDED, "c"], printed)  # the last line shown is the last printed
    assert not _matches(["b", ELIDED, "d"], printed)  # the first line shown is the first printed
    assert not _matches(["a", ELIDED, "c", "b", ELIDED], printed)  # in order
    assert not _matches(["a", "c", ELIDED], printed)  # contiguous between elisions


def test_the_examples_exit_as_the_readme_says() -> None:
    # "It exits 1: `examples/mistakes/common_mistakes.pbtxt` holds six mistakes [...] the other
    # examples [...] are clean."
    assert "It exits 1: `examples/mistakes/common_mistakes.pbtxt` holds six mistakes" in README
    result = _run("tpuemb check examples/")
    assert (result.returncode, result.stderr) == (1, "")
    findings = result.stdout.splitlines()[:-2]
    assert len(findings) == 9
    # "`examples/keras/ranking.keras`, a Keras-RS model saved on CPU, holds two"
    assert "`examples/keras/ranking.keras`, a Keras-RS model saved on CPU,\nholds two" in README
    assert [line.split(": ")[1].split()[0] for line in findings[:2]] == ["TE761", "TE762"]
    assert all(
        line.startswith("examples/keras/ranking.keras!config.json:") for line in findings[:2]
    )
    assert all(
        line.startswith("examples/mistakes/common_mistakes.pbtxt:") for line in findings[2:8]
    )
    # "clean, but for one info on the SparseCore example"
    assert "but for one info on the SparseCore example" in README
    assert findings[8].startswith("examples/sparsecore/dlrm.spec.yaml:43:5: TE651 [info] ")


def _make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][a-z-]*):", makefile, re.MULTILINE))


def _named_make_targets(readme: str) -> set[str]:
    named = set(re.findall(r"`make ([a-z][a-z-]*)", readme))
    for _, body in FENCE.findall(readme):
        named |= set(re.findall(r"^\s*make ([a-z][a-z-]*)", body, re.MULTILINE))
    return named


def test_every_make_target_the_readme_names_exists() -> None:
    named = _named_make_targets(README)
    assert {"install", "test", "lint", "docs", "bench"} <= named
    assert named - _make_targets() == set()


def _help(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


# Flags of programs other than tpuemb the README names, and the command that lists them.
OTHER_PROGRAMS = {
    "--large": [sys.executable, "-m", "bench.run", "--help"],
    "--runs": [sys.executable, "-m", "bench.startup", "--help"],
    "--installed": [sys.executable, "-m", "bench.startup", "--help"],
    "--startup-python": [sys.executable, "-m", "bench.run", "--help"],
    "--write": [sys.executable, "-m", "bench.keras_models", "--help"],
}


@pytest.mark.slow
def test_every_flag_the_readme_names_exists() -> None:
    options = set(re.findall(r"--[a-z][a-z-]*", _help()))
    for command in COMMANDS:
        options |= set(re.findall(r"--[a-z][a-z-]*", _help(command)))
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", README))
    assert {"--fix", "--statistics", "--format", "--type"} <= named
    for flag in sorted(named - options):
        assert flag in OTHER_PROGRAMS, f"the README names {flag}, which no tpuemb command has"
        listed = subprocess.run(
            OTHER_PROGRAMS[flag], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        assert flag in listed, (flag, OTHER_PROGRAMS[flag])


def _ci_make_steps() -> list[str]:
    script = (ROOT / ".ci" / "run").read_text()
    return re.findall(r"^make ([a-z][a-z-]*)\s*$", script, re.MULTILINE)


def test_the_ci_steps_the_readme_lists_are_those_of_ci_run() -> None:
    steps = _ci_make_steps()
    assert steps[:2] == ["install", "check-generated"] and "test-tf" in steps
    sentence = README.split("CI runs `.ci/run`", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"`make ([a-z][a-z-]*)`", sentence) == steps
    # And its last step, the shipped examples.
    assert "check examples/" in (ROOT / ".ci" / "run").read_text()
    assert "`tpuemb check examples/`" in sentence


def test_set_up_is_a_virtual_environment_then_install_and_test() -> None:
    section = README.split("## Set up and test", 1)[1].split("\n## ", 1)[0]
    block = FENCE.search(section)
    assert block is not None
    commands = [line.split("#", 1)[0].strip() for line in block.group(2).splitlines()]
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate",
        "make install",
        "make test",
    ]
    assert "two commands install and test" in section
    assert ".venv/" in (ROOT / ".gitignore").read_text().splitlines()


def _requirement_names() -> set[str]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    names = {re.split(r"[<>=;\[ ]", requirement, maxsplit=1)[0] for requirement in requirements}
    return names - {project["name"]}


def test_the_readme_says_why_each_dependency_is_there() -> None:
    paragraph = README.split("**Dependencies.**", 1)[1].split("\n\n", 1)[0]
    names = _requirement_names()
    assert {"protobuf", "tomlkit", "pytest", "tensorflow-cpu"} <= names
    missing = {name for name in names if f"`{name}`" not in paragraph}
    assert missing == set()


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len(FRONT.splitlines()) <= 300
    for topic in (
        "## Set up and test",
        "## Adopting tpuemb on an existing repository",
        "## In the editor",
        "## Documentation",
    ):
        assert topic in FRONT
    for ecosystem in ("TensorFlow", "jax-tpu-embedding", "Keras-RS"):
        assert ecosystem in FRONT.split("## Set up and test")[0]


def test_every_relative_link_resolves() -> None:
    # The README is read on GitHub, the pages beside it: a relative link names a file there.
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            assert (page.parent / path).exists(), f"{page.name}: {target}"


def test_every_docs_page_is_in_the_readme_s_table() -> None:
    table = FRONT.split("## Documentation", 1)[1]
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in table, page.name
