from pathlib import Path

import pytest

from corpus_builder.ingest import corpus_info, corpus_kind, drop_duplicates, read_corpus
from state.corpus import Component, Document, IngestReport
from tools.errors import CorpusFormatError

MINI = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"


def test_corpus_kind_recognises_bundles_html_and_image_folders(tmp_path: Path, write_png) -> None:
    assert corpus_kind(MINI) == "bundle"
    assert corpus_kind(MINI / "corpus.jsonl") == "bundle"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "Warsaw.HTM").write_text("<p>Warsaw.</p>", encoding="utf-8")
    assert corpus_kind(tmp_path / "site") == "html"
    write_png(tmp_path / "photos" / "nested" / "flag.png")
    assert corpus_kind(tmp_path / "photos") == "images"


@pytest.mark.parametrize("name", ["missing", "empty", "notes.txt"])
def test_corpus_kind_refuses_anything_else(tmp_path: Path, name: str) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.md").write_text("nothing here", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=name):
        corpus_kind(tmp_path / name)


def doc(doc_id: str, *component_ids: str, source: str = "") -> Document:
    components = tuple(
        Component(cid, doc_id, "paragraph", n, text="text") for n, cid in enumerate(component_ids)
    )
    return Document(doc_id, doc_id, components=components, source=source or f"corpus:{doc_id}")


def test_duplicate_doc_ids_keep_the_first_and_name_both_places() -> None:
    report = IngestReport()
    kept = drop_duplicates(
        [doc("warsaw", "w::p0", source="c:1"), doc("warsaw", "w2::p0", source="c:7")], report
    )
    assert [d.source for d in kept] == ["c:1"]
    assert [(s.where, s.problem) for s in report.skipped] == [
        ("c:7", "duplicate doc_id 'warsaw' (first at c:1)")
    ]


def test_duplicate_component_ids_are_dropped_and_emptied_documents_skipped() -> None:
    report = IngestReport()
    kept = drop_duplicates(
        [
            doc("warsaw", "w::p0", "w::p1", source="c:1"),
            doc("krakow", "w::p1", "k::p0", source="c:2"),
            doc("gdansk", "w::p0", source="c:3"),
        ],
        report,
    )
    assert [(d.doc_id, [c.component_id for c in d.components]) for d in kept] == [
        ("warsaw", ["w::p0", "w::p1"]),
        ("krakow", ["k::p0"]),
    ]
    assert [(s.where, s.problem) for s in report.skipped] == [
        ("c:2 (w::p1)", "duplicate component_id (first in c:1)"),
        ("c:3 (w::p0)", "duplicate component_id (first in c:1)"),
        ("c:3", "empty document after dropping duplicates"),
    ]


def test_read_corpus_counts_what_it_kept(write_bundle, records) -> None:
    folder = write_bundle(
        [
            records.document("a", records.paragraph("a::p0", "Alpha."), title="A"),
            records.document("a", records.paragraph("a::p1", "Again."), title="A"),
            records.document("b", records.paragraph("a::p0", "Same id."), records.paragraph(
                "b::p0", "Beta."), title="B"),
        ]
    )  # fmt: skip
    report = IngestReport()
    kind, documents = read_corpus(folder / "corpus.jsonl", report)
    assert kind == "bundle" and [d.doc_id for d in documents] == ["a", "b"]
    assert (report.documents, report.components, len(report.skipped)) == (2, 2, 2)
    assert report.skipped[0].where == f"{folder / 'corpus.jsonl'}:2"


def test_corpus_info_hash_changes_with_content_and_names_only(mini_bundle: Path) -> None:
    first = corpus_info(mini_bundle, "bundle")
    assert (first.kind, first.files, first.path) == ("bundle", 3, str(mini_bundle.resolve()))
    assert first.bytes == sum(p.stat().st_size for p in mini_bundle.rglob("*") if p.is_file())
    assert corpus_info(mini_bundle, "bundle").sha256 == first.sha256
    questions = mini_bundle / "questions.jsonl"
    questions.write_text(questions.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    second = corpus_info(mini_bundle, "bundle")
    assert second.sha256 != first.sha256
    questions.rename(mini_bundle / "questions_v2.jsonl")
    assert corpus_info(mini_bundle, "bundle").sha256 != second.sha256
    single = corpus_info(mini_bundle / "corpus.jsonl", "bundle")
    assert single.files == 1 and single.sha256 != first.sha256
