"""Every graph langgraph.json serves has input, output and context schemas Studio can show.

`langgraph dev` reports a schema pydantic cannot build as null (e.g. `typing.TypedDict`
on Python < 3.12), and Studio then draws no input form; a field without a description
shows as a bare name. The context check names the field a bad context got wrong.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.runtime import Runtime

from graph_agent.context_check import checks_context, require_index
from state.settings import DEFAULT_INDEX_DIR, RunSettings
from tools.errors import ContextError

REPO = Path(__file__).resolve().parents[3]
SERVED = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))["graphs"]


def served_graph(spec: str) -> Any:
    path, attribute = spec.split(":")
    module = path.removeprefix("./").removesuffix(".py").replace("/", ".")
    return getattr(importlib.import_module(module), attribute)


def undescribed(schema: dict[str, Any]) -> list[str]:
    return [name for name, field in schema["properties"].items() if not field.get("description")]


@pytest.mark.parametrize("name", sorted(SERVED))
@pytest.mark.parametrize("kind", ["input", "output", "context"])
def test_every_served_schema_builds_with_described_fields(name: str, kind: str) -> None:
    graph = served_graph(SERVED[name])
    schema = getattr(graph, f"get_{kind}_jsonschema")()
    assert schema and schema["properties"], f"{name}: empty {kind} schema"
    assert undescribed(schema) == [], f"{name} {kind}: fields without a description"


def test_every_graph_served_is_checked() -> None:
    assert set(SERVED) == {"fif", "lilac", "ircot", "mmapg", "extraction", "reagent"}


def test_the_default_index_is_the_same_for_context_cli_and_make() -> None:
    from graph_agent.cli import DEFAULT_INDEX

    assert RunSettings().index_dir == DEFAULT_INDEX_DIR == str(DEFAULT_INDEX)
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert f"INDEX ?= {DEFAULT_INDEX_DIR} " in makefile


def test_a_missing_index_names_the_context_field(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(ContextError) as raised:
        require_index(RunSettings(index_dir=str(missing)))
    message = str(raised.value)
    assert message.startswith("context.index_dir: ") and str(missing) in message
    assert "fif build" in message and isinstance(raised.value, ValueError)


def test_an_unknown_scoped_document_names_the_context_field(mini_index: Path) -> None:
    context = RunSettings(index_dir=str(mini_index), doc_scope=("no-such-doc",))
    with pytest.raises(ContextError, match=r"^context\.doc_scope: .*'no-such-doc'"):
        require_index(context)


def test_the_entry_check_runs_before_the_node(tmp_path: Path, mini_index: Path) -> None:
    calls: list[str] = []

    def entry(state: dict[str, Any], runtime: Runtime[RunSettings]) -> dict[str, Any]:
        calls.append(state["question"])
        return {}

    checked = checks_context(entry)
    assert checked.__name__ == "entry"
    with pytest.raises(ContextError):
        checked({"question": "q"}, Runtime(context=RunSettings(index_dir=str(tmp_path))))
    assert calls == []
    checked({"question": "q"}, Runtime(context=RunSettings(index_dir=str(mini_index))))
    assert calls == ["q"]
