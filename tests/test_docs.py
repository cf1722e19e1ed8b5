"""The README stays short, and the pages under docs/ hold the rest: every relative link in them
resolves (to a file, and to a heading of it where a link names one), and the MkDocs site builds
with strict checks (mkdocs.yml)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify as mkdocs_slugify

from tests.conftest import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
README_LIMIT = 15_000  # characters: what a newcomer reads in five minutes

_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def _section(text: str, title: str) -> str:
    """The ``## title`` section of a Markdown text, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no '## {title}' section"
    return match.group(0)


def _github_slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The ids of a page's headings: those both MkDocs (Python-Markdown's toc) and GitHub give,
    so that a link works on the site and on GitHub alike."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for match in re.finditer(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.M):
        plain = re.sub(r"[`*_]", "", match.group(1))
        mkdocs = mkdocs_slugify(unicodedata.normalize("NFC", plain), "-")
        if mkdocs == _github_slug(plain):
            found.add(mkdocs)
    return found


def links(path: Path) -> list[str]:
    """Relative link targets of a Markdown file (code blocks and code spans left out)."""
    text = _CODE_SPAN.sub("", _FENCE.sub("", path.read_text(encoding="utf-8")))
    return [t for t in _LINK.findall(text) if not _SCHEME.match(t)]


def broken_links(paths: list[Path], root: Path = REPO) -> list[str]:
    """Each relative link of the files that names no existing file, or no heading of it."""
    broken = []
    for path in paths:
        for target in links(path):
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                broken.append(f"{path.relative_to(root)}: {target} (no such file)")
            elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                broken.append(f"{path.relative_to(root)}: {target} (no such heading)")
    return broken


def _pages() -> list[Path]:
    pages = sorted(DOCS.glob("*.md"))
    assert len(pages) > 10, pages
    return pages


def test_the_readme_is_short_and_keeps_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text) < README_LIMIT, f"README.md has {len(text)} characters; move some to docs/"
    two = _section(text, "Two commands")
    # .ci/run and the Makefile's header name these two commands as the README's.
    assert "\n```sh\nmake demo\n```\n" in two, two
    assert "\n```sh\nmake test\n```\n" in two, two
    # The site's home page repeats the section word for word.
    assert _section((DOCS / "index.md").read_text(encoding="utf-8"), "Two commands") == two


def test_every_docs_page_is_linked_from_the_readme_and_in_the_site_nav() -> None:
    pages = {p.name for p in _pages()}
    readme = {t.partition("#")[0] for t in links(README)}
    missing = sorted(f"docs/{p}" for p in pages - {"index.md"} if f"docs/{p}" not in readme)
    assert not missing, f"README.md's 'Where to read more' does not link {missing}"
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = {next(iter(entry.values())) for entry in config["nav"]}
    assert nav == pages, f"mkdocs.yml's nav and docs/ differ: {sorted(nav ^ pages)}"


def test_every_relative_link_resolves() -> None:
    files = [README, *_pages()]
    assert sum(len(links(f)) for f in files) >= 2 * len(files), "too few links found to check"
    assert broken_links(files) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B\n\n## A firm's own server\n", encoding="utf-8")
    page = tmp_path / "docs" / "a.md"
    page.write_text(
        "[ok](b.md#a-firms-own-server) [gone](c.md) [nope](b.md#nowhere) `[code](d.md)`\n"
        "```\n[fenced](e.md)\n```\n[web](https://example.com/x.md)\n",
        encoding="utf-8",
    )
    assert broken_links([page], root=tmp_path) == [
        "docs/a.md: c.md (no such file)",
        "docs/a.md: b.md#nowhere (no such heading)",
    ]


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    out = _build(REPO / "mkdocs.yml", tmp_path / "site")
    assert out.returncode == 0, out.stdout + out.stderr
    for page in _pages():
        html = "index.html" if page.stem == "index" else f"{page.stem}/index.html"
        assert (tmp_path / "site" / html).is_file(), html


def test_a_missing_heading_fails_the_site_build(tmp_path: Path) -> None:
    """mkdocs.yml makes an anchor that names no heading a warning, so strict builds fail on it."""
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(DOCS, tmp_path / "docs")
    with (tmp_path / "docs" / "index.md").open("a", encoding="utf-8") as f:
        f.write("\n[Nowhere](configuration.md#no-such-heading)\n")
    out = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert out.returncode != 0, out.stdout + out.stderr
    assert "no-such-heading" in out.stderr, out.stderr
