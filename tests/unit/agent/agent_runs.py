"""Run the compiled FiF graph in memory and read back its route and checkpoints."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from scripted_model import ScriptedChatModel, register

from corpus_builder.build import BuildOptions, build
from graph_agent.fif_graph import build_graph, fif_graph
from state.fif_context import FiFContext

FLAG_QUESTION = "What colours are the stripes on the flag of the city where Marie Curie was born?"
NOBEL_QUESTION = "Which three physicists shared the 1903 Nobel Prize in Physics?"

SMALL_HOPS = {"docs_per_hop": 2, "components_per_hop": 3}
"""Narrow hops: on the 8-document mini corpus a default hop returns every document."""


def index_with_injection(mini_bundle: Path, hash_build: Any, records: Any, injection: str) -> Path:
    """Add a Radium Institute page stating a fact, then `injection`; index the bundle."""
    page = records.document(
        "radium_institute",
        records.paragraph(
            "radium_institute::p0",
            f"The Radium Institute in Paris was founded by Marie Curie in 1909. {injection}",
            ["marie_curie"],
        ),
        title="Radium Institute",
    )
    with (mini_bundle / "corpus.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(page) + "\n")
    index_dir = mini_bundle.parent / "injected_index"
    hash_build(mini_bundle, index_dir)
    return index_dir


def llm_context(index_dir: Path, model: ScriptedChatModel, **overrides: Any) -> FiFContext:
    """Return a FiFContext whose reasoning goes to the scripted model, without retry delays."""
    settings: dict[str, Any] = {
        "backend": "openai",
        "chat_model": register(model),
        "index_dir": str(index_dir),
        "llm_backoff_s": 0,
        **SMALL_HOPS,
    }
    return FiFContext(**{**settings, **overrides})


class Run:
    """One in-memory run of the graph: its final state, route and checkpoints."""

    def __init__(self, question: str, context: FiFContext, **compile_options: Any) -> None:
        if compile_options:  # e.g. interrupt_after, for resume tests
            self.graph = build_graph().compile(checkpointer=InMemorySaver(), **compile_options)
        else:
            self.graph = fif_graph(InMemorySaver())
        self.config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        self.context = context
        self.output = self.graph.invoke({"question": question}, self.config, context=context)

    @property
    def state(self) -> dict[str, Any]:
        """Return the full state of the latest checkpoint."""
        return dict(self.graph.get_state(self.config).values)

    def snapshots(self) -> list[Any]:
        """Return every checkpoint, oldest first."""
        return list(reversed(list(self.graph.get_state_history(self.config))))

    def route(self) -> list[str]:
        """Return the nodes run, in order (each checkpoint names the node that runs next)."""
        return [s.next[0] for s in self.snapshots() if s.next and s.next[0] != "__start__"]

    def strategies(self) -> list[tuple[str, str, str]]:
        """Return the strategy tuple of every traversal in the history."""
        return [tuple(h["strategy"].values()) for h in self.state["history"]]  # type: ignore[misc]


def paragraph_page(doc: str, title: str, text: str) -> dict[str, Any]:
    """Return a corpus record: a page of one paragraph, `DOC::p0`."""
    component = {"component_id": f"{doc}::p0", "type": "paragraph", "text": text}
    return {"doc_id": doc, "title": title, "components": [component]}


def build_pages(corpus_dir: Path, index_dir: Path, documents: list[dict[str, Any]]) -> Path:
    """Write the records as a bundle and index it with hash:64 vectors; return the index."""
    lines = [json.dumps(document) for document in documents]
    (corpus_dir / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    build(corpus_dir, index_dir, BuildOptions(text_embedder="hash:64", show_progress=False))
    return index_dir


def final_state(question: str, context: FiFContext) -> dict[str, Any]:
    """Run the graph on a new thread and return its whole final state, not the output keys."""
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    graph = fif_graph(InMemorySaver())
    graph.invoke({"question": question}, config, context=context)
    return dict(graph.get_state(config).values)
