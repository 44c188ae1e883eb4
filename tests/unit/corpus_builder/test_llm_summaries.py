"""LLM-written document summaries, with a scripted chat model registered by name."""

import json
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field
from typer.testing import CliRunner

from corpus_builder.build import BuildOptions, build
from corpus_builder.llm_summaries import (
    SUMMARY_MAX_OUTPUT_TOKENS,
    DocumentSummary,
    LLMSummarizer,
    summary_request,
    whole_sentences,
)
from corpus_builder.prompts import SUMMARY_SYSTEM
from corpus_builder.summaries import (
    SUMMARY_MAX_CHARS,
    ExtractiveSummarizer,
    Summarizer,
    load_summarizer,
)
from fif import cli
from state.corpus import Component, Document, Table
from state.settings import RunSettings
from tools.chat_models import register_chat_model
from tools.errors import ConfigError
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, SUMMARIES_FILE, Manifest

Reply = str | Callable[[str], str]


class SummaryModel(BaseChatModel):
    """Reply to summary calls from a script keyed by document title; record every call."""

    replies: dict[str, list[Reply]] = Field(default_factory=dict)
    calls: list[str] = Field(default_factory=list)
    options: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-summaries"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        assert str(messages[0].content) == SUMMARY_SYSTEM
        request = str(next(m for m in messages if isinstance(m, HumanMessage)).content)
        title = request.splitlines()[0].removeprefix("Title: ")
        self.calls.append(title)
        self.options.append(kw)
        queue = self.replies.get(title, [])
        reply = queue.pop(0) if queue else json.dumps({"summary": f"All about {title}."})
        text = reply(request) if callable(reply) else reply
        usage = {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))]
        )


@pytest.fixture
def model() -> SummaryModel:
    return SummaryModel()


def fresh_name() -> str:
    return f"summaries-{uuid.uuid4().hex[:8]}"


def summarizer_for(model: SummaryModel, name: str | None = None, retries: int = 1) -> Summarizer:
    """Register the model (under a fresh name unless given) and return its summarizer.

    Registering another model under a name used before keeps the summarizer id, as a
    later build with the same settings would.
    """
    spec = register_chat_model(name or fresh_name(), model)
    context = RunSettings(chat_model=spec, llm_retries=retries, llm_backoff_s=0)
    return load_summarizer("openai", context)


def build_with(corpus: Path, index: Path, summarizer: Summarizer) -> Manifest:
    options = BuildOptions(text_embedder="hash:64", show_progress=False, summarizer=summarizer)
    return build(corpus, index, options)


def document_texts(index: Path) -> dict[str, str]:
    graph = LayeredGraph.load(index / GRAPH_FILE)
    return {doc_id: graph.node(doc_id).text for doc_id in graph.nodes_at(0)}


def test_the_model_writes_every_summary_and_the_manifest_says_so(
    mini_bundle: Path, tmp_path: Path, model: SummaryModel
) -> None:
    summarizer = summarizer_for(model)
    manifest = build_with(mini_bundle, tmp_path / "index", summarizer)
    assert summarizer.summarizer_id.startswith("llm-summary-1:summaries-")
    assert manifest.options["summarizer"] == summarizer.summarizer_id
    assert manifest.summaries == {
        "written": 8, "reused": 0, "fallback": 0,
        "llm_calls": 8, "input_tokens": 400, "output_tokens": 80,
    }  # fmt: skip
    assert document_texts(tmp_path / "index")["radium"] == "All about Radium."
    assert len(model.calls) == 8


def test_an_unchanged_rebuild_makes_no_calls_and_re_embeds_nothing(
    mini_bundle: Path, tmp_path: Path, model: SummaryModel
) -> None:
    name = fresh_name()
    build_with(mini_bundle, tmp_path / "index", summarizer_for(model, name))
    again_model = SummaryModel()
    again = build_with(mini_bundle, tmp_path / "index", summarizer_for(again_model, name))
    assert again_model.calls == [] and again.summaries["reused"] == 8
    assert again.summaries["llm_calls"] == 0
    assert again.embedding["document_unchanged"] == 8 and "texts_embedded" not in again.embedding


def test_a_changed_document_is_summarized_and_re_embedded_alone(
    mini_bundle: Path, tmp_path: Path, model: SummaryModel
) -> None:
    summarizer = summarizer_for(model)
    build_with(mini_bundle, tmp_path / "index", summarizer)
    corpus = mini_bundle / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace('"title": "Radium"', '"title": "Radium (Ra)"'))
    model.calls.clear()
    again = build_with(mini_bundle, tmp_path / "index", summarizer)
    assert model.calls == ["Radium (Ra)"]
    assert (again.summaries["written"], again.summaries["reused"]) == (1, 7)
    assert again.embedding["document_written"] == 1


def test_malformed_replies_fall_back_to_the_extractive_summary(
    mini_bundle: Path, tmp_path: Path, model: SummaryModel, caplog: pytest.LogCaptureFixture
) -> None:
    model.replies["Polonium"] = ["Polonium is element 84.", '{"summary": ""}']
    caplog.set_level(logging.WARNING)
    name = fresh_name()
    manifest = build_with(mini_bundle, tmp_path / "index", summarizer_for(model, name))
    assert (manifest.summaries["written"], manifest.summaries["fallback"]) == (7, 1)
    assert model.calls.count("Polonium") == 2  # one repair, then the fallback
    texts = document_texts(tmp_path / "index")
    assert texts["polonium"].startswith("Polonium.") and texts["radium"] == "All about Radium."
    assert any("summary of polonium" in r.message and "extractive" in r.message
               for r in caplog.records if r.levelno == logging.WARNING)  # fmt: skip
    stored = json.loads((tmp_path / "index" / SUMMARIES_FILE).read_text())["summaries"]
    assert "polonium" not in stored and "radium" in stored

    model.calls.clear()  # the next build asks again for the fallen-back summary only
    again = build_with(mini_bundle, tmp_path / "index", summarizer_for(model, name))
    assert again.summaries["fallback"] == 0 and again.summaries["written"] == 1
    assert model.calls == ["Polonium"]


def test_a_long_reply_is_cut_to_the_summary_bound(
    mini_bundle: Path, tmp_path: Path, model: SummaryModel
) -> None:
    model.replies["Warsaw"] = [json.dumps({"summary": "Warsaw is a city. " * 200})]
    build_with(mini_bundle, tmp_path / "index", summarizer_for(model))
    warsaw = document_texts(tmp_path / "index")["warsaw"]
    assert len(warsaw) <= SUMMARY_MAX_CHARS and warsaw.endswith("…")


def test_the_request_is_bounded_and_renders_tables_and_images() -> None:
    table = Table(("Year", "Award"), tuple((str(1900 + n), "Prize") for n in range(9)))
    components = (
        Component("d::t0", "d", "table", 0, text="Awards", table=table),
        Component("d::i0", "d", "image", 1, text="A portrait"),
        *(Component(f"d::p{n}", "d", "paragraph", 2 + n, text="word " * 300) for n in range(9)),
    )
    request = summary_request(Document("d", "Marie Curie", components=components), limit=2000)
    assert request.startswith("Title: Marie Curie\n\nTable: Awards\nYear | Award\n")
    assert "... (4 more rows)" in request and "Image: A portrait" in request
    assert request.endswith("[the rest of the document is left out]")
    assert len(request) < 2000 + 100


def test_summary_choices() -> None:
    assert isinstance(load_summarizer("extractive"), ExtractiveSummarizer)
    assert isinstance(
        load_summarizer("openai", RunSettings(chat_model="gpt-5-mini")), LLMSummarizer
    )
    with pytest.raises(ConfigError, match="--summaries 'gpt': choose one of extractive, openai"):
        load_summarizer("gpt")


def test_fif_build_writes_llm_summaries_from_the_command_line(
    mini_bundle: Path, tmp_path: Path, model: SummaryModel
) -> None:
    spec = register_chat_model(f"cli-{uuid.uuid4().hex[:8]}", model)
    args = ["build", str(mini_bundle), "--index", str(tmp_path / "i"), "--embedder", "hash:64"]
    result = CliRunner().invoke(
        cli.app, [*args, "--no-progress", "--summaries", "openai", "--chat-model", spec]
    )
    assert result.exit_code == 0, result.output
    assert Manifest.load(tmp_path / "i").summaries["written"] == 8 and len(model.calls) == 8


def test_the_local_model_gets_a_reply_cap_and_the_schema_a_length_bound(
    model: SummaryModel,
) -> None:
    spec = register_chat_model(fresh_name(), model)
    summarizer = load_summarizer("local", RunSettings(chat_model=spec))
    summarizer.summarize(Document("radium", "Radium"))
    assert model.options[0]["max_tokens"] == SUMMARY_MAX_OUTPUT_TOKENS
    assert model.options[0]["response_format"]["json_schema"]["name"] == "DocumentSummary"
    schema = DocumentSummary.model_json_schema()["properties"]["summary"]
    assert schema["maxLength"] == SUMMARY_MAX_CHARS
    hosted = SummaryModel()
    summarizer_for(hosted).summarize(Document("radium", "Radium"))
    assert "max_tokens" not in hosted.options[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Radium is element 88. It glows", "Radium is element 88."),
        ("Radium is element 88. It glows.", "Radium is element 88. It glows."),
        (
            "Radium. It is element 88 and glows faintly",
            "Radium. It is element 88 and glows faintly",
        ),
        ("Radium is element 88", "Radium is element 88"),
    ],
)
def test_an_unfinished_last_sentence_is_dropped(text: str, expected: str) -> None:
    assert whole_sentences(text) == expected
