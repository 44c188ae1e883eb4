"""Every name a benchmark script imports from the product exists (lazy imports included).

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


def imported_names(path: Path) -> list[tuple[str, str]]:
    """Return (module, name) for every `from <first-party module> import name` in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in FIRST_PARTY:
                found.extend((node.module, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize("script", sorted(ROOT.glob("benchmarks/*.py")), ids=lambda p: p.name)
def test_benchmark_imports_resolve(script: Path) -> None:
    missing = []
    for module, name in imported_names(script):
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
