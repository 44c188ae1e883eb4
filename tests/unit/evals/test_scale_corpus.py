"""The scale benchmark's corpus generator: deterministic, fresh ids, links resolve, sizes
reached, and no planted gold text copied into a distractor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from corpus_builder.ingest import read_corpus
from evals.datasets.scale_corpus import ScaledCorpus, unit_texts, write_scaled_bundle
from state.corpus import Document, IngestReport

GOLD_SENTENCE = "Alice Marlow founded the Lumen Theatre in Bristol in 1921 ."
PLANTED_OTHER = "The building is listed ."  # no title word: never renamed
CITIES = ["Bristol", "Lisbon", "Toronto", "Madras", "Quito", "Oslo"]
PEOPLE = ["Alice Marlow", "Bruno Keller", "Clara Dumont", "Dmitri Orlov", "Esther Vance"]


def _page(doc_id: str, title: str, sentences: list[str]) -> dict[str, Any]:
    text = " ".join(sentences)
    return {
        "doc_id": doc_id,
        "title": title,
        "components": [{"component_id": f"{doc_id}::p0", "type": "paragraph", "text": text}],
    }


def _bundle(folder: Path, pages: list[dict[str, Any]], questions: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    lines = [json.dumps(p) for p in pages]
    (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "questions.jsonl").write_text(
        "\n".join(json.dumps(q) for q in questions) + "\n", encoding="utf-8"
    )
    return folder


def _sources(folder: Path) -> Path:
    """Pages about people and cities that name each other, one with the gold sentence, a table."""
    pages = []
    for n, person in enumerate(PEOPLE):
        city, other = CITIES[n], PEOPLE[(n + 1) % len(PEOPLE)]
        pages.append(
            _page(
                person.replace(" ", "_"),
                person,
                [
                    f"{person} was a painter born in {city} in {1850 + n} .",
                    f"{person} studied under {other} at the Royal Academy .",
                    f"Later {person} moved to {CITIES[n + 1]} , where {other} lived .",
                ],
            )
        )
    pages.append(
        _page("Lumen_Theatre", "Lumen Theatre", [GOLD_SENTENCE, "It seats 900 .", PLANTED_OTHER])
    )
    header = ["Year", "Painter", "City"]
    rows = [[str(1900 + n), p, CITIES[n]] for n, p in enumerate(PEOPLE)]
    links = [[[], [p.replace(" ", "_")], []] for p in PEOPLE]
    table = {"component_id": "Prizes::t0", "type": "table", "caption": "Prize winners",
             "table": {"header": header, "rows": rows}, "cell_links": links}  # fmt: skip
    pages.append({"doc_id": "Prizes", "title": "Painting Prize", "components": [table]})
    return _bundle(folder, pages, [])


def _planted(folder: Path) -> Path:
    page = _page("Lumen", "Lumen Theatre (Bristol)", [GOLD_SENTENCE, PLANTED_OTHER])
    question = {"qid": "q1", "question": "Who founded the Lumen Theatre ?", "answers": ["Alice"],
                "gold_components": ["Lumen::p0"], "gold_docs": ["Lumen"]}  # fmt: skip
    return _bundle(folder, [page], [question])


def _grown(tmp_path: Path, target: int, seed: int, name: str) -> tuple[Path, ScaledCorpus]:
    planted = tmp_path / "planted"
    sources = tmp_path / "sources"
    if not planted.exists():
        _planted(planted)
        _sources(sources)
    out = tmp_path / name
    return out, write_scaled_bundle(planted, [sources], target, out, seed)


def _documents(folder: Path) -> tuple[list[Document], IngestReport]:
    report = IngestReport()
    return read_corpus(folder, report)[1], report


def test_same_seed_same_corpus_other_seed_another(tmp_path: Path) -> None:
    first, _ = _grown(tmp_path, 60, 3, "a")
    again, _ = _grown(tmp_path, 60, 3, "b")
    other, _ = _grown(tmp_path, 60, 4, "c")
    assert (first / "corpus.jsonl").read_bytes() == (again / "corpus.jsonl").read_bytes()
    assert (first / "corpus.jsonl").read_bytes() != (other / "corpus.jsonl").read_bytes()
    assert (first / "questions.jsonl").read_text() == (
        tmp_path / "planted/questions.jsonl"
    ).read_text()


def test_distractors_have_fresh_ids_and_links_that_resolve(tmp_path: Path) -> None:
    out, grown = _grown(tmp_path, 60, 3, "a")
    documents, report = _documents(out)
    ids = [d.doc_id for d in documents]
    distractors = [d for d in documents if d.doc_id != "Lumen"]
    assert len(ids) == len(set(ids)) and len(distractors) == grown.distractor_documents
    source_ids = {json.loads(line)["doc_id"] for line in (tmp_path / "sources/corpus.jsonl").open()}
    assert not source_ids & {d.doc_id for d in distractors}
    links = [link for d in distractors for c in d.components for link in c.links]
    assert links and report.unresolved_links == 0
    assert set(links) <= {d.doc_id for d in distractors}
    tables = [c.table for d in distractors for c in d.components if c.table]
    assert tables and any(cell for t in tables for row in t.cell_links for cell in row)


def test_size_reaches_the_target_within_a_tolerance(tmp_path: Path) -> None:
    for target in (30, 80):
        out, grown = _grown(tmp_path, target, 3, f"size{target}")
        documents, _ = _documents(out)
        units = len(unit_texts(documents))  # as the builder splits them
        assert grown.rounds > 1 or target == 30
        assert abs(units - target) <= max(3, target * 0.1), (target, units)
        assert units == grown.planted_subcomponents + grown.distractor_subcomponents


def test_no_planted_gold_text_in_a_distractor(tmp_path: Path) -> None:
    out, grown = _grown(tmp_path, 80, 3, "a")
    documents, _ = _documents(out)
    distractor_text = [
        text
        for d in documents
        if d.doc_id != "Lumen"
        for c in d.components
        for text in [c.text, *(cell for row in (c.table.rows if c.table else ()) for cell in row)]
    ]
    assert grown.distractor_documents > 0
    assert not [t for t in distractor_text if GOLD_SENTENCE in t or PLANTED_OTHER in t]
    # the source page's other sentence is there: only the planted ones were left out
    assert any("seats 900" in text for text in distractor_text)
