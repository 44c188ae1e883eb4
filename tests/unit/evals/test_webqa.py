"""The WebQA adapter on a small fixture in WebQA_train_val.json's format."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evals.datasets import ConversionJob
from evals.datasets.webqa import convert
from tools.errors import ConfigError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 8


ReadBundle = Callable[[Path], Any]


def test_val_split_grouped_by_page(
    webqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    report = convert(ConversionJob(webqa_raw, tmp_path / "out", split="dev"))
    bundle = read_bundle(tmp_path / "out")
    assert set(bundle.docs) == {
        "Belgrade_Nikola_Tesla_Airport",
        "Saipan_International_Airport",
        "File:Castro_Theatre,_San_Francisco.jpg",
        "File:Castro_Theatre_marquee.jpg",
    }
    airport = bundle.docs["Belgrade_Nikola_Tesla_Airport"]
    # the pos and the neg snippet of one page become two paragraphs; the shared neg once
    assert [(c["component_id"], c["source_id"]) for c in airport["components"]] == [
        ("Belgrade_Nikola_Tesla_Airport::p0", "d5bb1"),
        ("Belgrade_Nikola_Tesla_Airport::p1", "d5bb3"),
    ]
    castro = bundle.docs["File:Castro_Theatre,_San_Francisco.jpg"]
    assert castro["title"] == "Castro Theatre, San Francisco"
    (image,) = castro["components"]
    assert image["type"] == "image" and image["caption"] == "The Castro Theatre in San Francisco."
    assert image["image_path"] == "images/30000001.jpg" and image["source_id"] == "30000001"

    text_q = bundle.question("g_text")
    assert text_q["question"] == "SPN is an example of what thing 11mi west of downtown Belgrade?"
    assert text_q["answers"] == ["Airport"]
    assert text_q["gold_components"] == [
        "Belgrade_Nikola_Tesla_Airport::p0",
        "Saipan_International_Airport::p0",
    ]
    assert text_q["hops"] == 2
    assert (text_q["modalities"], text_q["answer_source"]) == (["text"], "passage")
    assert text_q["qcate"] == "text"
    image_q = bundle.question("g_image")
    assert image_q["gold_components"] == ["File:Castro_Theatre_marquee.jpg::i0"]
    assert image_q["hops"] == 1
    assert (image_q["modalities"], image_q["answer_source"]) == (["image"], "image")
    assert [q["qid"] for q in bundle.questions] == ["g_text", "g_image"]  # train item left out
    assert all(g in bundle.component_ids for q in bundle.questions for g in q["gold_components"])
    assert report.problems_by_kind == {"bad_raw_record": 2, "no_gold": 1}
    assert report.stats["images_not_copied"] == 2


def test_train_split_and_limit(webqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle) -> None:
    convert(ConversionJob(webqa_raw, tmp_path / "train", split="train"))
    assert [q["qid"] for q in read_bundle(tmp_path / "train").questions] == ["g_train"]
    convert(ConversionJob(webqa_raw, tmp_path / "one", limit=1))
    bundle = read_bundle(tmp_path / "one")
    assert [q["qid"] for q in bundle.questions] == ["g_text"]
    assert "File:Castro_Theatre_marquee.jpg" not in bundle.docs


def test_images_from_tsv_and_loose_files(webqa_raw: Path, tmp_path: Path) -> None:
    images = tmp_path / "imgs"
    images.mkdir()
    # imgs.tsv holds image 30000000 (line index 0) as base64; 30000001 is a loose file
    line = b"30000000\t" + base64.b64encode(PNG) + b"\n"
    (images / "imgs.tsv").write_bytes(line)
    (images / "imgs.lineidx").write_text("0\n", encoding="utf-8")
    (images / "30000001.jpg").write_bytes(JPEG)
    report = convert(ConversionJob(webqa_raw, tmp_path / "out", images_dir=images))
    assert (tmp_path / "out" / "images" / "30000000.png").read_bytes() == PNG
    assert (tmp_path / "out" / "images" / "30000001.jpg").read_bytes() == JPEG
    assert report.stats["images_copied"] == 2 and report.stats["images_missing"] == 0


def test_unknown_split(webqa_raw: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the test file has no gold sources"):
        convert(ConversionJob(webqa_raw, tmp_path / "out", split="test"))
