"""The MultimodalQA adapter on a small fixture in MMQA's published (gzipped) format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evals.datasets import ConversionJob, get_adapter
from evals.datasets.mmqa import convert
from evals.datasets.questions import load_questions
from tools.errors import ConfigError, DatasetFormatError

ReadBundle = Callable[[Path], Any]


def test_full_conversion(mmqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle) -> None:
    report = convert(ConversionJob(mmqa_raw, tmp_path / "out"))
    bundle = read_bundle(tmp_path / "out")
    # one document per page; texts, tables and images of a page grouped in that order
    assert set(bundle.docs) == {
        "Dutch_Ruppersberger",
        "Baltimore_County_Executive",
        "Taipei",
        "Distractor_Page",
        "Far_Page",
    }
    dutch = bundle.docs["Dutch_Ruppersberger"]
    assert [c["type"] for c in dutch["components"]] == ["paragraph", "table", "image"]
    assert [c["component_id"] for c in dutch["components"]] == [
        "Dutch_Ruppersberger::p0",
        "Dutch_Ruppersberger::t0",
        "Dutch_Ruppersberger::i0",
    ]
    assert [c["source_id"] for c in bundle.docs["Baltimore_County_Executive"]["components"]] == [
        "txt_bce_1",
        "txt_bce_2",
    ]
    table = bundle.component("Dutch_Ruppersberger::t0")
    assert table["caption"] == "Dutch Ruppersberger -- Electoral history"
    assert table["table"] == {
        "header": ["Year", "Office"],
        "rows": [["1994", "Baltimore County Executive"], ["2002", "Congress"]],
    }
    # links keep only pages present in the corpus
    assert table["links"] == ["Baltimore_County_Executive"]
    assert table["cell_links"] == [[[], ["Baltimore_County_Executive"]], [[], []]]
    image = bundle.component("Taipei::i0")
    assert image["image_path"] == "images/Taipei.jpg" and image["caption"] == "Taipei"

    compose = bundle.question("q_compose")
    assert compose["gold_components"] == [
        "Dutch_Ruppersberger::t0",
        "Baltimore_County_Executive::p0",
    ]
    assert compose["gold_docs"] == ["Dutch_Ruppersberger", "Baltimore_County_Executive"]
    assert compose["hops"] == 2 and compose["answer_source"] == "passage"
    assert compose["modalities"] == ["table", "text"]
    image_q = bundle.question("q_image")
    assert image_q["gold_components"] == ["Taipei::i0"] and image_q["answers"] == ["5"]
    assert image_q["hops"] == 1 and image_q["answer_source"] == "image"
    assert all(g in bundle.component_ids for q in bundle.questions for g in q["gold_components"])

    assert report.questions == 3 and report.documents == 5
    assert report.problems_by_kind == {"bad_raw_line": 2, "bad_raw_record": 1, "no_gold": 1}
    assert bundle.stats["images_not_copied"] == 2
    assert bundle.stats["links_dropped_target_not_in_corpus"] == 1
    assert bundle.stats["questions_by_hops"] == {"1": 2, "2": 1}


def test_limit_keeps_the_context_pages_and_linked_pages(
    mmqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    convert(ConversionJob(mmqa_raw, tmp_path / "out", limit=1))
    bundle = read_bundle(tmp_path / "out")
    assert [q["qid"] for q in bundle.questions] == ["q_compose"]
    # gold + distractor context pages, and the pages the table links to; not Far_Page or Taipei
    assert set(bundle.docs) == {
        "Dutch_Ruppersberger",
        "Baltimore_County_Executive",
        "Distractor_Page",
    }
    # whole pages come along: both paragraphs of the linked page
    assert len(bundle.docs["Baltimore_County_Executive"]["components"]) == 2


def test_images_are_copied_from_the_images_folder(
    mmqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    images = tmp_path / "images_zip" / "final_dataset_images"
    images.mkdir(parents=True)
    (images / "Taipei.jpg").write_bytes(b"\xff\xd8\xff fake jpeg")
    report = convert(ConversionJob(mmqa_raw, tmp_path / "out", images_dir=tmp_path / "images_zip"))
    assert (tmp_path / "out" / "images" / "Taipei.jpg").read_bytes() == b"\xff\xd8\xff fake jpeg"
    assert report.stats["images_copied"] == 1 and report.stats["images_missing"] == 1
    assert report.problems_by_kind["image_missing"] == 1
    assert any("Dutch_Ruppersberger.jpg" in message for message in report.problems)


def test_output_loads_as_questions(mmqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle) -> None:
    convert(ConversionJob(mmqa_raw, tmp_path / "out"))
    bundle = read_bundle(tmp_path / "out")
    loaded = load_questions(tmp_path / "out" / "questions.jsonl", bundle.component_ids, strict=True)
    assert {e.qid for e in loaded.examples} == {"q_compose", "q_image", "q_far"}
    assert loaded.examples[0].extra["question_type"] == "Compose(TextQ,TableQ)"


def test_registry_and_errors(mmqa_raw: Path, tmp_path: Path) -> None:
    assert get_adapter("mmqa") is convert
    known = "known datasets: financebench, hybridqa, mmcoqa, mmlongbench, mmqa, ottqa, webqa"
    with pytest.raises(ConfigError, match=known):
        get_adapter("nope")
    with pytest.raises(ConfigError, match="no gold labels"):
        convert(ConversionJob(mmqa_raw, tmp_path / "out", split="test"))
    with pytest.raises(DatasetFormatError, match="MMQA train questions"):
        convert(ConversionJob(mmqa_raw, tmp_path / "out", split="train"))
    with pytest.raises(ConfigError, match="limit"):
        convert(ConversionJob(mmqa_raw, tmp_path / "out", limit=0))


def test_truncated_gzip_is_a_dataset_error(mmqa_raw: Path, tmp_path: Path) -> None:
    path = mmqa_raw / "MMQA_texts.jsonl.gz"
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(DatasetFormatError, match="MMQA_texts.jsonl.gz: unreadable"):
        convert(ConversionJob(mmqa_raw, tmp_path / "out"))
