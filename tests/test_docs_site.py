"""The documentation site (`make docs-site`), without MkDocs: mkdocs.yml's nav names the landing
page and every docs page once, it declares no URL, it stays strict, and tools/docs_site.py writes
the README and docs/ with their links rewritten for the site, failing on a broken one."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).parent.parent
TOOL = ROOT / "tools" / "docs_site.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_site", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, reading mkdocs.yml's `!!python/...` tags (the headings' slug
    function) as None instead of constructing anything."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _config() -> dict[str, Any]:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    assert isinstance(config, dict)
    return config


def _nav_files(nav: list[Any]) -> list[str]:
    """The files a nav names, in order: an entry is a file, {title: file} or {title: [entries]}."""
    files: list[str] = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            files += _nav_files(value) if isinstance(value, list) else [value]
    return files


def test_the_nav_names_the_landing_page_and_every_docs_page_once() -> None:
    files = _nav_files(_config()["nav"])
    assert len(files) == len(set(files)), sorted(f for f in files if files.count(f) > 1)
    assert files[0] == "index.md"  # the README
    assert {f"{page.stem}.md" for page in (ROOT / "docs").glob("*.md")} <= set(files)
    # And nothing else but the changelog: exactly the pages tools/docs_site.py writes.
    assert sorted(files) == sorted(_tool().pages().values())
    assert _tool().pages()["README.md"] == "index.md"


def test_the_site_declares_no_url() -> None:
    # The project publishes none ([project.urls] in pyproject.toml is empty): no host is invented.
    config = _config()
    for key in ("site_url", "repo_url", "repo_name", "edit_uri"):
        assert key not in config, key
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not project.get("urls")


def test_the_build_is_strict_on_every_link_anchor_and_page() -> None:
    config = _config()
    assert config["strict"] is True
    assert config["validation"]["links"] == {
        "not_found": "warn",
        "anchors": "warn",
        "absolute_links": "warn",
        "unrecognized_links": "warn",
    }
    assert config["validation"]["nav"]["omitted_files"] == "warn"
    assert config["theme"]["name"] == "material"
    # "it works from disk, search included" (docs/development.md)
    assert config["use_directory_urls"] is False and "offline" in config["plugins"]


def test_make_docs_site_assembles_where_mkdocs_reads_and_pins_what_the_docs_say() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ndocs-site:", 1)[1].split("\n\n", 1)[0]
    assert f"tools/docs_site.py {_config()['docs_dir']}\n" in recipe
    assert "mkdocs build --strict" in recipe
    development = (ROOT / "docs" / "development.md").read_text()
    for name, variable in (
        ("mkdocs", "MKDOCS_VERSION"),
        ("mkdocs-material", "MKDOCS_MATERIAL_VERSION"),
    ):
        version = re.search(rf"^{variable} := (\S+)$", makefile, re.MULTILINE)
        assert version is not None, variable
        assert f"{name} {version[1]}" in development, name


def _relative_links(text: str) -> list[str]:
    """The relative links of Markdown ``text`` outside code: what MkDocs will check."""
    text = re.sub(r"^( *)(```|~~~).*?^\1\2", "", text, flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"`[^`\n]+`", "", text)
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    return [link for link in links if not re.match(r"[a-z]+:|#", link)]


def test_the_assembled_pages_link_only_to_pages_of_the_site(tmp_path: Path) -> None:
    tool = _tool()
    names = tool.assemble(tmp_path / "site-src")
    assert sorted(names) == sorted(tool.pages().values())
    for name in names:
        for link in _relative_links((tmp_path / "site-src" / name).read_text(encoding="utf-8")):
            assert link.split("#", 1)[0] in names, f"{name}: {link}"
    index = (tmp_path / "site-src" / "index.md").read_text(encoding="utf-8")
    assert "[docs/usage.md](usage.md)" in index and "](docs/" not in index
    configuration = (tmp_path / "site-src" / "configuration.md").read_text(encoding="utf-8")
    assert "(index.md#adopting-tpuemb-on-an-existing-repository)" in configuration
    # A link to a file the site does not hold is its path, in code.
    assert "`examples/jax/` holds two layouts" in (tmp_path / "site-src" / "jax.md").read_text()
    # Running again replaces what the last run wrote.
    assert tool.assemble(tmp_path / "site-src") == names


def _repository(root: Path, readme: str, page: str) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "examples").mkdir()
    (root / "examples" / "a.pbtxt").write_text("")
    (root / "README.md").write_text(readme)
    (root / "CHANGELOG.md").write_text("# Changelog\n")
    (root / "docs" / "page.md").write_text(page)
    return root


def test_links_are_rewritten_for_the_site(tmp_path: Path) -> None:
    tool = _tool()
    root = _repository(
        tmp_path / "repo",
        "See [the page](docs/page.md#part), [CHANGELOG.md](CHANGELOG.md) and "
        "[examples/a.pbtxt](examples/a.pbtxt).\n\n```\n[in code](docs/nowhere.md)\n```\n",
        "Back to [README](../README.md#top), [an example](../examples/a.pbtxt), "
        "`[code](nowhere.md)`, [elsewhere](https://example.org/x.md), [here](#part).\n",
    )
    tool.assemble(tmp_path / "out", root)
    assert (tmp_path / "out" / "index.md").read_text() == (
        "See [the page](page.md#part), [CHANGELOG.md](changelog.md) and `examples/a.pbtxt`."
        "\n\n```\n[in code](docs/nowhere.md)\n```\n"
    )
    assert (tmp_path / "out" / "page.md").read_text() == (
        "Back to [README](index.md#top), an example `examples/a.pbtxt`, "
        "`[code](nowhere.md)`, [elsewhere](https://example.org/x.md), [here](#part).\n"
    )


@pytest.mark.parametrize(
    ("page", "problem"),
    [
        ("[gone](gone.md)", "docs/gone.md does not exist"),
        ("[gone](../examples/gone.pbtxt)", "examples/gone.pbtxt does not exist"),
        ("[anchor](../examples/a.pbtxt#x)", "the site does not hold examples/a.pbtxt"),
        ("[out](../../outside.md)", "leaves the repository"),
    ],
)
def test_a_broken_link_fails_and_writes_nothing(tmp_path: Path, page: str, problem: str) -> None:
    tool = _tool()
    root = _repository(tmp_path / "repo", "# tpuemb\n", f"# Page\n\n{page}\n")
    with pytest.raises(tool.BrokenLink, match=re.escape(problem)):
        tool.assemble(tmp_path / "out", root)
    assert not (tmp_path / "out").exists()


def test_a_folder_it_did_not_make_is_never_emptied(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(SystemExit):
        _tool().assemble(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep"
