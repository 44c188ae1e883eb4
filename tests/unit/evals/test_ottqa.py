"""The OTT-QA/HybridQA adapter on a small fixture in OTT-QA's published format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evals.datasets import ADAPTERS, ConversionJob
from evals.datasets.ottqa import convert
from tools.errors import DatasetFormatError

ReadBundle = Callable[[Path], Any]


def test_conversion_follows_the_shared_bundle_conventions(
    ottqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    report = convert(ConversionJob(ottqa_raw, tmp_path / "out"))
    bundle = read_bundle(tmp_path / "out")
    # one document per table page (intro + both tables), one per linked passage
    assert set(bundle.docs) == {"Some_Page", "Alice_Smith", "Carol_White"}
    page = bundle.docs["Some_Page"]
    assert page["url"] == "https://en.wikipedia.org/wiki/Some_Page"
    assert [c["component_id"] for c in page["components"]] == [
        "Some_Page::p0",
        "Some_Page::table::Some_Page_0",
        "Some_Page::table::Some_Page_1",
    ]
    assert page["components"][0]["text"] == "Some Page is a page with two tables."
    first = page["components"][1]
    assert first["caption"] == "Some Page -- Results" and "text" not in first
    assert first["table"]["header"] == ["Year", "Opponent", "Capacity"]
    assert first["table"]["rows"][1] == ["1995", "Bob Jones", "200,000"]
    # Bob_Jones has no passage and Some_Page is the table's own page: both links dropped
    assert first["links"] == ["Alice_Smith"]
    assert first["cell_links"] == [[[], ["Alice_Smith"], []], [[], [], []]]
    assert first["table_uid"] == "Some_Page_0"
    assert page["components"][2]["text"] == "Coaches by year ."
    alice = bundle.docs["Alice_Smith"]
    assert alice["title"] == "Alice Smith"
    assert alice["components"] == [
        {
            "component_id": "Alice_Smith::p0",
            "type": "paragraph",
            "text": "Alice Smith ( born February 17 , 1846 ) was a player .",
            "links": [],
            "source_id": "/wiki/Alice_Smith",
        }
    ]

    passage_q = bundle.question("q_passage")
    assert passage_q["gold_components"] == ["Some_Page::table::Some_Page_0", "Alice_Smith::p0"]
    assert passage_q["gold_docs"] == ["Some_Page", "Alice_Smith"]
    assert passage_q["gold_cells"] == [
        {
            "component_id": "Some_Page::table::Some_Page_0",
            "row": 0,
            "col": 1,
            "cell_text": "Alice Smith",
            "node_text": "Alice Smith",
            "link": "Alice_Smith",
        }
    ]
    assert (passage_q["hops"], passage_q["answer_source"], passage_q["modalities"]) == (
        2,
        "passage",
        ["table", "text"],
    )
    table_q = bundle.question("q_table")
    assert table_q["gold_components"] == ["Some_Page::table::Some_Page_0"]
    assert (table_q["hops"], table_q["answer_source"]) == (1, "table")
    assert table_q["gold_cells"][0]["link"] is None and table_q["table_id"] == "Some_Page_0"
    assert [q["qid"] for q in bundle.questions] == ["q_passage", "q_table", "q_second_table"]
    assert all(g in bundle.component_ids for q in bundle.questions for g in q["gold_components"])

    assert report.stats["rejected"] == {
        "answer_node_unverifiable": 1,
        "answer_nodes=2+": 1,
        "table_not_found": 1,
    }
    assert report.problems_by_kind == {"bad_raw_record": 1}
    assert report.stats["components_by_type"] == {"paragraph": 3, "table": 2}


def test_limit_keeps_only_the_tables_used(
    ottqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    convert(ConversionJob(ottqa_raw, tmp_path / "out", limit=2))
    bundle = read_bundle(tmp_path / "out")
    assert [q["qid"] for q in bundle.questions] == ["q_passage", "q_table"]
    assert set(bundle.docs) == {"Some_Page", "Alice_Smith"}
    assert len(bundle.docs["Some_Page"]["components"]) == 2


def test_hybridqa_is_the_same_adapter(ottqa_raw: Path, tmp_path: Path) -> None:
    assert ADAPTERS["hybridqa"] is convert
    with pytest.raises(DatasetFormatError, match="no tables folder found"):
        convert(ConversionJob(ottqa_raw / "released_data", tmp_path / "out"))
    with pytest.raises(DatasetFormatError, match="test questions with traced answer nodes"):
        convert(ConversionJob(ottqa_raw, tmp_path / "out", split="test"))
