"""Docs that stay true: a short README, links that resolve, a page per system, no outside refs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph_agent.registry import SYSTEMS

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 300
SKIPPED_DIRS = {
    ".git",
    ".venv",
    ".fif",
    "runs",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
}
OUTSIDE = (
    "../" + "shared", "/work/" + "shared", "STYLE" + ".md", "STYLE" + " §", "ARCHITECTURE" + ".md"
)
"""Documents outside the repository that no file of it may cite (split so this file passes)."""
LINK = re.compile(r"\]\(([^)\s]+)\)")


def repo_text_files() -> Iterator[Path]:
    """Yield every text file of the checkout, outside caches, venvs, indices and run folders."""
    for path in REPO.rglob("*"):
        parts = path.relative_to(REPO).parts
        if parts[0] == "data":
            continue  # the dev bundles' default home (FIF_DATA_DIR), outside version control
        if path.is_file() and not any(p in SKIPPED_DIRS or p.endswith(".egg-info") for p in parts):
            if path.suffix not in {".png", ".jpg", ".jpeg", ".gif", ".pdf", ".sqlite3", ".npz"}:
                yield path


def markdown_files() -> list[Path]:
    """Return the README, the contributors' guide and every page under docs/."""
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").rglob("*.md"))]


def heading_anchors(page: Path) -> set[str]:
    """Return the anchors GitHub gives a page's headings (lowercase, punctuation dropped)."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_the_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move detail to docs/"
    )


def test_no_file_cites_documents_outside_the_repository() -> None:
    found = []
    for path in repo_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(REPO)}: {needle}" for needle in OUTSIDE if needle in text]
    assert found == []


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_and_anchors_resolve(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (page.parent / file_part).resolve()
        if not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in heading_anchors(resolved):
            broken.append(target)
    assert broken == [], f"{page.relative_to(REPO)} links to what does not exist"


def test_every_system_has_a_page_linked_from_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in SYSTEMS:
        assert (REPO / "docs" / "systems" / f"{name}.md").is_file(), name
        assert f"(docs/systems/{name}.md)" in readme, name


def test_outside_references_are_caught(tmp_path: Path) -> None:
    cited = "see " + OUTSIDE[0] + "/data/README.md"
    assert any(needle in cited for needle in OUTSIDE)
    assert heading_anchors(REPO / "docs" / "configuration.md") >= {"fiftuning", "readertuning"}
