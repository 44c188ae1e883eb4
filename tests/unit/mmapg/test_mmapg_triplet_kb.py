"""MMAPG on an index built with `fif build --triplets`: text candidates score their best triplet.

The scripted extractor gives every passage a bland triplet (its first and last words),
except Becquerel's second paragraph, to which it attributes FACT (wrongly, on purpose: the
tests check that the ranking follows the triplets, not how good they are). Only a search
of the triplet KB ranks that paragraph first for FACT; the sentences rank Warsaw's (her
birthplace) first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mmapg_scripted import MMAPGScriptedModel, register

from corpus_builder.build import BuildOptions, build
from corpus_builder.triplet_extraction import load_triplet_extractor
from graph_agent.mmapg_graph import ask_mmapg
from nodes.mmapg.radius import RadiusSettings, text_pool
from nodes.mmapg.retrieval import retrieve
from state.mmapg_state import MMAPGContext
from state.settings import RunSettings
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.triplet_search import has_triplet_kb, score_triplets

MINI_BUNDLE = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"
FACT = "Marie Curie born in Warsaw 1867"
OWNER = "henri_becquerel::p1"


def triplets(user: str) -> str:
    """Reply to a build-time triplet call: FACT for Becquerel's second paragraph."""
    found = []
    for n, text in re.findall(r"^(\d+): (.*)$", user, re.MULTILINE):
        words = text.split()
        subject, relation, obj = (
            ("Marie Curie", "born in", "Warsaw 1867")
            if text.startswith("Henri Becquerel: He shared")
            else (words[0], "mentions", words[-1])
        )
        found.append(
            {
                "index": int(n),
                "triplets": [{"subject": subject, "relation": relation, "object": obj}],
            }
        )
    return json.dumps({"passages": found})


@pytest.fixture(scope="module")
def kb_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini bundle indexed with hash:64 and a triplet KB (read only)."""
    model = MMAPGScriptedModel(defaults={"kb_triplets": triplets})
    context = RunSettings(backend="openai", chat_model=register(model), llm_backoff_s=0)
    index_dir = tmp_path_factory.mktemp("kb_index")
    extractor = load_triplet_extractor(context)
    build(MINI_BUNDLE, index_dir, BuildOptions("hash:64", show_progress=False, triplets=extractor))
    return index_dir


def ids(items):
    return [item["component_id"] for item in items]


def test_a_component_scores_its_best_triplet(kb_index):
    index = open_index(str(kb_index))
    assert has_triplet_kb(index)
    found = score_triplets(index, FACT, 5)
    assert found[0].node_id == OWNER and found[0].score == pytest.approx(1.0)
    assert found[0].evidence == OWNER and found[0].kind == "paragraph"
    assert len({node.node_id for node in found}) == len(found) == 5
    scoped = score_triplets(index.scoped(["radium"]), FACT, 5)
    assert {node.doc_id for node in scoped} == {"radium"}


def test_the_text_pool_uses_the_triplet_kb_and_the_ablation_the_sentences(kb_index):
    index, meter = open_index(str(kb_index)), CostMeter()
    with_kb = text_pool(index, FACT, 5, meter, triplet_kb=True)
    without = text_pool(index, FACT, 5, meter, triplet_kb=False)
    assert ids(with_kb)[0] == OWNER and with_kb[0]["score"] == pytest.approx(1.0)
    assert ids(without)[0] == "warsaw::p1" and without[0]["score"] < 1.0
    assert ids(with_kb) != ids(without)
    context = MMAPGContext(index_dir=str(kb_index))
    assert RadiusSettings.of(context, index).triplet_kb
    assert not RadiusSettings.of(context.model_copy(update={"triplet_kb": False}), index).triplet_kb


def test_mmapg_ranks_by_the_built_kb_and_records_it(kb_index, mini_index):
    context = MMAPGContext(index_dir=str(kb_index), top_k=6, text_radius=0.0)
    found = retrieve(open_index(str(kb_index)), FACT, [], context, CostMeter(), False)
    assert found.text_kb == "triplets" and ids(found.kept)[0] == OWNER
    result = ask_mmapg(FACT, context)
    assert result.ranking[0]["component_id"] == OWNER
    plain = ask_mmapg(FACT, context.model_copy(update={"index_dir": str(mini_index)}))
    assert plain.ranking[0]["component_id"] != OWNER  # no KB: sentences and rows


def test_the_run_time_option_is_skipped_when_the_index_has_a_kb(kb_index):
    model = MMAPGScriptedModel(defaults={
        "split": json.dumps({"text_part": FACT, "key_phrases": ["Warsaw"]}),
        "examine": json.dumps({"relevant": [{"index": 0, "information": "born 1867"}]}),
    })  # fmt: skip  # no "triplets" reply: a run-time triplet call would fail the test
    context = MMAPGContext(index_dir=str(kb_index), backend="openai", chat_model=register(model),
                           llm_backoff_s=0, triplets=True, text_radius=0.0)  # fmt: skip
    found = retrieve(open_index(str(kb_index)), FACT, [], context, CostMeter(), True)
    assert "triplets" not in model.roles_called() and found.text_kb == "triplets"
    assert ids(found.kept) == [OWNER]
