"""Assembles the documentation site's pages from the repository's, for `make docs-site`.

    python tools/docs_site.py OUT

The repository's Markdown is written to be read on GitHub, beside the code: README.md links to
`docs/usage.md`, the pages link back to `../README.md`, and some name other files of the
repository (`../examples/jax/`). The site is built from one source, those same files: this writes
into OUT (emptied first) the README as `index.md`, each `docs/*.md` under its own name and
CHANGELOG.md as `changelog.md`, with each relative link rewritten to what it means in the site:

- a link to one of those files (with or without an anchor) becomes a link to its page, which
  MkDocs then checks, anchor included (mkdocs.yml: strict, every link and anchor validated);
- a link to any other file or folder of the repository, which the site does not hold, becomes its
  path in code (`examples/jax/`; after the link's text when that is not the path), since the
  project publishes no URL to link it to;
- a link whose target does not exist, or that puts an anchor on a file the site does not hold,
  fails here (exit 1), naming the file and the link.

Links in code (fenced blocks and inline spans) are text, and are left alone, as are links with a
scheme (https:) and links to an anchor of the same page.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
# What OUT holds, so that a mistaken OUT (a folder not made by this script) is never emptied.
MARKER = ".docs-site-src"


def pages(root: Path = ROOT) -> dict[str, str]:
    """The site's pages: each repository file (a path relative to ``root``) and its page's name."""
    site = {"README.md": "index.md"}
    site.update({f"docs/{page.name}": page.name for page in sorted((root / "docs").glob("*.md"))})
    site["CHANGELOG.md"] = "changelog.md"
    return site


# A fenced code block (``` or ~~~, indented or not, to its closing fence or the end), an inline
# code span, or a link or image: `[text](target)`, or a reference definition `[label]: target`.
TOKEN = re.compile(
    r"(?P<fence>^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})[^\n]*\n.*?^(?P=indent)(?P=mark)[ \t]*$)"
    r"|(?P<code>(?P<ticks>`+)(?:(?!(?P=ticks))(?!\n[ \t]*\n).)+?(?P=ticks))"
    r"|(?P<link>(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\))"
    r"|(?P<ref>^[ ]{0,3}\[(?P<label>[^\]\n]+)\]:[ \t]+(?P<reftarget>\S+))",
    re.MULTILINE | re.DOTALL,
)


class BrokenLink(Exception):
    """A relative link whose target does not exist, or that the site cannot check."""


def _site_target(source: str, target: str, site: dict[str, str], root: Path) -> str | None:
    """What ``target``, a link in the repository file ``source``, points to in the site: the page
    (and anchor) it names, or None when it names a file or folder the site does not hold."""
    path, hash_, anchor = target.partition("#")
    name = _repository_path(source, path)
    if name is None:
        raise BrokenLink(f"{source}: link {target!r} leaves the repository")
    if not (root / name).exists():
        raise BrokenLink(f"{source}: link {target!r}: {name} does not exist")
    if name in site:
        return site[name] + hash_ + anchor
    if hash_:
        raise BrokenLink(
            f"{source}: link {target!r}: the site does not hold {name}: its anchor is unchecked"
        )
    return None


def _repository_path(source: str, path: str) -> str | None:
    """``path``, relative to the repository file ``source``, relative to the repository's root
    instead (without a trailing slash), or None when it leaves the repository."""
    parts: list[str] = []
    for part in (PurePosixPath(source).parent / path).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def rewrite(source: str, text: str, site: dict[str, str], root: Path = ROOT) -> str:
    """``text``, the repository file ``source``'s Markdown, with its relative links rewritten for
    the site (the module's docstring says how)."""

    def replace(match: re.Match[str]) -> str:
        if match["fence"] or match["code"]:
            return match[0]
        target = match["target"] or match["reftarget"]
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("#"):
            return match[0]
        page = _site_target(source, target, site, root)
        if match["ref"]:
            if page is None:
                raise BrokenLink(f"{source}: reference {target!r} names a file the site lacks")
            return match[0].replace(target, page, 1)
        if page is not None:
            return f"{match['bang']}[{match['text']}]({page})"
        shown = f"{_repository_path(source, target)}{'/' if target.endswith('/') else ''}"
        label = match["text"].strip("`")
        return f"`{shown}`" if label == shown else f"{match['text']} `{shown}`"

    problems: list[str] = []

    def checked(match: re.Match[str]) -> str:
        try:
            return replace(match)
        except BrokenLink as error:
            problems.append(str(error))
            return match[0]

    rewritten = TOKEN.sub(checked, text)
    if problems:
        raise BrokenLink("\n".join(problems))
    return rewritten


def assemble(out: Path, root: Path = ROOT) -> list[str]:
    """Writes the site's pages into ``out`` (emptied first) and returns their names; raises
    BrokenLink, naming every link that cannot be written for the site, and then writes nothing."""
    site = pages(root)
    written: dict[str, str] = {}
    broken: list[str] = []
    for source, page in site.items():
        try:
            written[page] = rewrite(source, (root / source).read_text(encoding="utf-8"), site, root)
        except BrokenLink as error:
            broken.append(str(error))
    if broken:
        raise BrokenLink("\n".join(broken))
    if out.exists():
        if not (out / MARKER).exists():
            raise SystemExit(f"{out} exists and was not made by {Path(__file__).name}: not emptied")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARKER).write_text("made by tools/docs_site.py; emptied by each run\n")
    for page, text in written.items():
        (out / page).write_text(text, encoding="utf-8")
    return list(written)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        names = assemble(Path(argv[0]))
    except BrokenLink as error:
        print(f"docs_site: {error}", file=sys.stderr)
        return 1
    print(f"docs_site: {len(names)} pages in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
