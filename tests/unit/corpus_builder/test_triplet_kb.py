"""`fif build --triplets`: the triplet text KB, with a scripted chat model registered by name."""

import json
import logging
import re
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from corpus_builder import triplet_kb
from corpus_builder.build import BuildOptions, build
from corpus_builder.prompts import TRIPLET_SYSTEM
from corpus_builder.triplet_extraction import TripletExtractor, load_triplet_extractor, text_units
from state.corpus import Component, Document, Subcomponent, Table
from state.settings import RunSettings
from tools.chat_models import register_chat_model
from tools.errors import ConfigError
from tools.index import ChromaLayers
from tools.manifest import TRIPLETS_FILE, Manifest

Reply = str | Callable[[str], str] | Exception
UNITS = 23
"""Text units of the mini bundle: 17 paragraphs and the 6 rows of its one table."""
CALLS = 3
"""Calls for them in batches of 8."""


def passages(user: str) -> dict[int, str]:
    """Return the numbered passages of a triplet request."""
    return {int(n): text for n, text in re.findall(r"^(\d+): (.*)$", user, re.MULTILINE)}


def one_triplet_each(user: str) -> str:
    """Give every passage one triplet: its first word, 'mentions', its last word."""
    found = [
        {"index": n, "triplets": [{"subject": t.split()[0], "relation": "mentions",
                                   "object": t.split()[-1]}]}
        for n, t in passages(user).items()
    ]  # fmt: skip
    return json.dumps({"passages": found})


class TripletModel(BaseChatModel):
    """Reply to triplet calls from a queue (then `one_triplet_each`); record every request."""

    replies: list[Reply] = Field(default_factory=list)
    calls: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-triplets"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        assert str(messages[0].content).splitlines()[0] == TRIPLET_SYSTEM.splitlines()[0]
        user = str([m for m in messages if isinstance(m, HumanMessage)][-1].content)
        self.calls.append(user)
        reply = self.replies.pop(0) if self.replies else one_triplet_each
        if isinstance(reply, Exception):
            raise reply
        first = str(next(m for m in messages if isinstance(m, HumanMessage)).content)
        text = reply(first) if callable(reply) else reply
        usage = {"input_tokens": 40, "output_tokens": 10, "total_tokens": 50}
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))]
        )


def extractor_for(model: TripletModel, name: str = "", retries: int = 1) -> TripletExtractor:
    """Register the model (under a fresh name unless given) and return its extractor."""
    spec = register_chat_model(name or f"triplets-{uuid.uuid4().hex[:8]}", model)
    context = RunSettings(backend="openai", chat_model=spec, llm_retries=retries, llm_backoff_s=0)
    return load_triplet_extractor(context)


def build_with(corpus: Path, index: Path, extractor: TripletExtractor | None) -> Manifest:
    options = BuildOptions(text_embedder="hash:64", show_progress=False, triplets=extractor)
    return build(corpus, index, options)


def stored_rows(index: Path) -> int:
    with sqlite3.connect(index / TRIPLETS_FILE) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM triplets").fetchone()[0])


def triplet_layer(index: Path) -> dict[str, dict[str, Any]]:
    layers = ChromaLayers.open(index, None, Manifest.load(index).name)
    layers.collection("triplet")
    return layers.stored_metadata("triplet")


def test_the_build_extracts_stores_and_embeds_triplets(mini_bundle: Path, tmp_path: Path) -> None:
    model = TripletModel()
    manifest = build_with(mini_bundle, tmp_path / "index", extractor_for(model))
    kb = manifest.triplets
    assert kb is not None and kb.extractor.startswith("triplets-1:triplets-")
    assert (kb.units, kb.with_triplets, kb.as_text, kb.triplets) == (UNITS, UNITS, 0, UNITS)
    assert (kb.asked, kb.reused, kb.failed, kb.llm_calls, kb.input_tokens) == (
        UNITS, 0, 0, CALLS, 40 * CALLS)  # fmt: skip
    assert Manifest.load(tmp_path / "index").triplets == kb
    assert stored_rows(tmp_path / "index") == UNITS
    layer = triplet_layer(tmp_path / "index")
    assert len(layer) == UNITS and manifest.embedding["triplet_written"] == UNITS
    row = layer["nobel_prize_physics::t0::r0::k0"]  # a row's triplet maps back to its table
    assert (row["component_id"], row["doc_id"], row["type"]) == (
        "nobel_prize_physics::t0", "nobel_prize_physics", "triplet")  # fmt: skip
    assert any("1901–1904. Year: 1901 | Laureate: Wilhelm Röntgen" in c for c in model.calls)


def test_a_rebuild_asks_nothing_and_a_changed_paragraph_is_asked_alone(
    mini_bundle: Path, tmp_path: Path
) -> None:
    name = f"triplets-{uuid.uuid4().hex[:8]}"
    build_with(mini_bundle, tmp_path / "index", extractor_for(TripletModel(), name))
    again_model = TripletModel()
    again = build_with(mini_bundle, tmp_path / "index", extractor_for(again_model, name))
    assert again_model.calls == [] and again.triplets is not None
    assert (again.triplets.reused, again.triplets.asked, again.triplets.llm_calls) == (UNITS, 0, 0)
    assert again.embedding["triplet_unchanged"] == UNITS and "texts_embedded" not in again.embedding
    corpus = mini_bundle / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace("horse-drawn wagon", "horse-drawn cart"))
    edited = build_with(mini_bundle, tmp_path / "index", extractor_for(again_model, name))
    assert len(again_model.calls) == 1 and list(passages(again_model.calls[0])) == [0]
    assert "horse-drawn cart" in again_model.calls[0]
    assert edited.triplets is not None and edited.triplets.asked == 1
    assert stored_rows(tmp_path / "index") == UNITS  # the old paragraph's triplets are gone


def test_malformed_replies_are_repaired_or_skipped_and_reported(
    mini_bundle: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def drop_last_passage_and_invent_one(user: str) -> str:
        reply = json.loads(one_triplet_each(user))
        reply["passages"][-1]["index"] = 99  # a passage that was not sent: repaired
        return json.dumps(reply)

    def drop_last_passage(user: str) -> str:
        reply = json.loads(one_triplet_each(user))
        return json.dumps({"passages": reply["passages"][:-1]})

    model = TripletModel(replies=[
        "Sure! Here are the triplets: (Marie Curie, born in, Warsaw)",  # batch 1: not JSON
        one_triplet_each,                                                # ... repaired
        drop_last_passage_and_invent_one, drop_last_passage,            # batch 2: one missing
        '{"passages": [{"index": 0, "triplets": [{"subject": ""}]}]}',   # batch 3: broken twice
        '{"passages": "none"}',
    ])  # fmt: skip
    caplog.set_level(logging.WARNING)
    name = f"triplets-{uuid.uuid4().hex[:8]}"
    manifest = build_with(mini_bundle, tmp_path / "index", extractor_for(model, name))
    kb = manifest.triplets
    assert kb is not None and len(model.calls) == 6
    assert "could not be used: not JSON" in model.calls[1]
    assert "passages [99] were not sent" in model.calls[3]
    batch3 = UNITS - 16
    assert (kb.failed, kb.with_triplets, kb.as_text) == (1 + batch3, 15, 1 + batch3)
    assert len(kb.problems) == 2 and "no passage for" in kb.problems[0]
    assert any("triplets skipped" in r.message for r in caplog.records)
    assert stored_rows(tmp_path / "index") == 15
    kinds = [meta["type"] for meta in triplet_layer(tmp_path / "index").values()]
    assert kinds.count("text") == 1 + batch3  # failed units stay reachable by their text

    healthy = TripletModel()  # the next build asks for the skipped units only
    again = build_with(mini_bundle, tmp_path / "index", extractor_for(healthy, name))
    assert sum(len(passages(call)) for call in healthy.calls) == 1 + batch3
    assert again.triplets is not None and again.triplets.with_triplets == UNITS


def test_a_server_failing_mid_build_loses_nothing_already_extracted(
    mini_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(triplet_kb, "MAX_FAILURES_IN_A_ROW", 1)
    model = TripletModel(replies=[one_triplet_each, TimeoutError("server gone")])
    name = f"triplets-{uuid.uuid4().hex[:8]}"
    manifest = build_with(mini_bundle, tmp_path / "index", extractor_for(model, name, retries=0))
    kb = manifest.triplets
    assert kb is not None and (kb.with_triplets, kb.failed, kb.not_asked) == (8, 8, UNITS - 16)
    assert manifest.complete and stored_rows(tmp_path / "index") == 8

    model.replies = [one_triplet_each, RuntimeError("the build is killed")]
    with pytest.raises(RuntimeError):
        build_with(mini_bundle, tmp_path / "index", extractor_for(model, name, retries=0))
    assert stored_rows(tmp_path / "index") == 16  # the batch before the crash is kept

    model.calls.clear()
    build_with(mini_bundle, tmp_path / "index", extractor_for(model, name))
    assert sum(len(passages(call)) for call in model.calls) == UNITS - 16


def test_without_a_chat_model_triplets_fail_before_anything_is_written(
    mini_bundle: Path, tmp_path: Path, run_fif_main: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("FIF_BACKEND", raising=False)
    with pytest.raises(ConfigError, match="--triplets extracts triplets with a chat model"):
        build_with(mini_bundle, tmp_path / "lib", TripletExtractor(RunSettings()))
    assert not (tmp_path / "lib").exists()
    args = ["build", str(mini_bundle), "--index", str(tmp_path / "cli"), "--embedder", "hash:64"]
    code, _, err = run_fif_main(*args, "--triplets")
    assert code == 2 and "--backend openai" in err and "sentences and table rows" in err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = run_fif_main(*args, "--triplets", "--backend", "openai")
    assert code == 2 and "needs an API key in $OPENAI_API_KEY" in err
    assert not (tmp_path / "cli").exists()


def test_fif_build_triplets_from_the_command_line(
    mini_bundle: Path, tmp_path: Path, run_fif_main: Callable[..., Any]
) -> None:
    spec = register_chat_model(f"cli-{uuid.uuid4().hex[:8]}", TripletModel())
    args = ["build", str(mini_bundle), "--index", str(tmp_path / "i"), "--embedder", "hash:64"]
    code, out, _ = run_fif_main(*args, "--no-progress", "--triplets", "--backend", "openai",
                                "--chat-model", spec)  # fmt: skip
    assert code == 0 and "triplet KB" in out and f"{UNITS} triplets" in out
    code, out, _ = run_fif_main(*args, "--no-progress")  # without --triplets: no KB
    assert code == 0 and Manifest.load(tmp_path / "i").triplets is None
    assert "triplet" not in triplet_kinds(tmp_path / "i")
    assert stored_rows(tmp_path / "i") == UNITS  # kept for the next --triplets build


def triplet_kinds(index: Path) -> set[str]:
    layers = ChromaLayers.open(index, None, Manifest.load(index).name)
    return {layer for layer in ("triplet", "component") if layers.has(layer)}


def test_units_are_paragraphs_in_sentence_runs_and_table_rows() -> None:
    table = Table(("Year", "Laureate"), (("1901", "Röntgen"), ("1903", "Curie")))
    said = [f"Sentence number {n} says something." for n in range(80)]
    components = (
        Component("d::p0", "d", "paragraph", 0, text="Short paragraph."),
        Component("d::p1", "d", "paragraph", 1, text=" ".join(said)),
        Component("d::t0", "d", "table", 2, text="Laureates", table=table),
        Component("d::i0", "d", "image", 3, text="A portrait"),
    )
    sentences = [Subcomponent(f"d::p1::s{n}", "d::p1", "d", "sentence", n, text)
                 for n, text in enumerate(said)]  # fmt: skip
    rows = [Subcomponent(f"d::t0::r{n}", "d::t0", "d", "row", n, f"Year: {y} | Laureate: {who}")
            for n, (y, who) in enumerate(table.rows)]  # fmt: skip
    units = text_units([Document("d", "Prizes", components=components)],
                       {"d::p1": sentences, "d::t0": rows})  # fmt: skip
    owners = [unit.owner for unit in units]
    assert owners[0] == "d::p0" and owners[-2:] == ["d::t0::r0", "d::t0::r1"]
    runs = owners[1:-2]
    assert len(runs) >= 2 and runs[0] == "d::p1::s0" and all("::s" in o for o in runs)
    assert all(len(unit.text) <= 1600 for unit in units)
    assert units[-1].text == "Prizes: Laureates. Year: 1903 | Laureate: Curie"
    assert {unit.component_id for unit in units} == {"d::p0", "d::p1", "d::t0"}
