"""No module imports itself back through others (issue 14): each idea has one home."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("state", "tools", "nodes", "corpus_builder", "graph_agent", "evals")


def module_names() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Return the first-party modules a module imports (lazy and TYPE_CHECKING ones too)."""
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets.update(f"{node.module}.{alias.name}" for alias in node.names)
            targets.add(node.module)
    resolved = set()
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def test_no_import_cycles() -> None:
    modules = module_names()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_edges_from((name, target) for target in imported(name, path, modules))
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, f"import cycles; move the shared piece to one home: {cycles}"


def test_the_walker_finds_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from b import thing\n")
    (tmp_path / "b.py").write_text("def f():\n    from a import other\n")
    modules = {"a": tmp_path / "a.py", "b": tmp_path / "b.py"}
    assert imported("a", modules["a"], modules) == {"b"}
    assert imported("b", modules["b"], modules) == {"a"}
