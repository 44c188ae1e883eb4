"""Every name a benchmark script imports from the product or a sibling script exists.

Lazy imports included; a sibling script is read, not imported (scripts run on import).

Benchmarks run by hand, not in CI: a name moved by a refactor would otherwise surface only
at the end of a ten-minute soak.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = (
    "state",
    "tools",
    "nodes",
    "corpus_builder",
    "graph_agent",
    "evals",
    "serve",
    "mcp_server",
    "fif",
)
SCRIPTS = {path.stem: path for path in ROOT.glob("benchmarks/*.py")}


def imported_names(path: Path) -> list[tuple[str, str]]:
    """Return (module, name) for every `from <first-party module or script> import name`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in FIRST_PARTY or node.module in SCRIPTS:
                found.extend((node.module, alias.name) for alias in node.names)
    return found


def top_level_names(path: Path) -> set[str]:
    """Return the names a script defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("script", sorted(ROOT.glob("benchmarks/*.py")), ids=lambda p: p.name)
def test_benchmark_imports_resolve(script: Path) -> None:
    missing = []
    for module, name in imported_names(script):
        if module in SCRIPTS:
            if name not in top_level_names(SCRIPTS[module]):
                missing.append(f"{module}.{name}")
            continue
        loaded = importlib.import_module(module)
        if not hasattr(loaded, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
    assert not missing, f"{script.name} imports names that do not exist: {missing}"


def test_the_walker_sees_lazy_imports(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("def f():\n    from serve.runs import thread_history\n")
    assert imported_names(script) == [("serve.runs", "thread_history")]


def test_the_walker_checks_names_imported_from_sibling_scripts(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("from mmlongbench_bench import COLUMNS, _gone\n")
    assert imported_names(script) == [
        ("mmlongbench_bench", "COLUMNS"),
        ("mmlongbench_bench", "_gone"),
    ]
    defined = top_level_names(SCRIPTS["mmlongbench_bench"])
    assert "COLUMNS" in defined and "main" in defined and "_gone" not in defined
