import json
from collections.abc import Callable
from pathlib import Path

import pytest

from corpus_builder.bundle import read_bundle
from corpus_builder.images import ImageGuard
from state.corpus import Document, IngestReport
from tools.errors import CorpusFormatError

MINI = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"


def read(folder: Path, **guard: int) -> tuple[dict[str, Document], IngestReport]:
    report = IngestReport()
    docs = read_bundle(folder / "corpus.jsonl", report, ImageGuard(folder, **guard))
    return {doc.doc_id: doc for doc in docs}, report


def skipped(report: IngestReport) -> list[tuple[str, str]]:
    return [(item.where, item.problem) for item in report.skipped]


def test_mini_bundle_reads_every_document_and_component_type() -> None:
    docs, report = read(MINI)
    assert report.skipped == [] and report.repaired == []
    assert len(docs) == 8
    assert sum(len(doc.components) for doc in docs.values()) == 19
    table = docs["nobel_prize_physics"].components[1]
    assert table.kind == "table" and table.text == "Nobel laureates in Physics, 1901–1904"
    assert table.table is not None and table.table.header == (
        "Year", "Laureate", "Country", "Rationale"
    )  # fmt: skip
    assert len(table.table.rows) == 6 and table.table.row_links(4) == ("marie_curie",)
    assert table.links == ("henri_becquerel", "pierre_curie", "marie_curie")
    image = docs["warsaw"].components[2]
    assert image.kind == "image" and image.text.startswith("Flag of Warsaw")
    assert image.image_path == str((MINI / "images" / "warsaw_flag.png").resolve())
    assert docs["marie_curie"].source == f"{MINI / 'corpus.jsonl'}:1"
    assert [c.order for c in docs["warsaw"].components] == [0, 1, 2]


def test_title_falls_back_to_the_doc_id_and_links_are_deduplicated(
    write_bundle: Callable[..., Path], records
) -> None:
    folder = write_bundle(
        [records.document("Rue_Dauphine", records.paragraph("rd::p0", "A street.", ["a", "a", ""]))]
    )
    docs, _ = read(folder)
    assert docs["Rue_Dauphine"].title == "Rue Dauphine"
    assert docs["Rue_Dauphine"].components[0].links == ("a",)


def test_utf8_bom_does_not_cost_the_first_document(write_bundle, records) -> None:
    line = records.document("warsaw", records.paragraph("warsaw::p0", "Capital of Poland."))
    folder = write_bundle([b"\xef\xbb\xbf" + json.dumps(line).encode()])
    docs, report = read(folder)
    assert list(docs) == ["warsaw"] and report.skipped == []


GOOD = {"doc_id": "radium", "components": [
    {"component_id": "radium::p0", "type": "paragraph", "text": "Radium is element 88."}
]}  # fmt: skip


@pytest.mark.parametrize(
    ("line", "where", "problem"),
    [
        ('{"doc_id": "polonium", "components": [', ":2", "malformed JSON: Expecting value"),
        (b'{"doc_id": "caf\xe9", "components": []}', ":2", "not UTF-8 (invalid continuation"),
        ('["polonium"]', ":2", "not a document record"),
        ('{"title": "Polonium"}', ":2", "not a document record: doc_id: Field required"),
        ('{"doc_id": "  ", "components": []}', ":2", "doc_id is empty"),
        ('{"doc_id": "polonium", "components": []}', ":2 doc 'polonium'", "empty document"),
        (
            '{"doc_id": "polonium", "components": [{"component_id": "po::p0", "type": '
            '"paragraph", "text": "  "}]}',
            ":2 component 0 (po::p0)",
            "empty paragraph",
        ),
        (
            '{"doc_id": "polonium", "components": [{"type": "paragraph", "text": "x"}]}',
            ":2 component 0",
            "bad component: component_id: Field required",
        ),
        (
            '{"doc_id": "polonium", "components": ["just text"]}',
            ":2",
            "not a document record: components.0: Input should be a valid dictionary",
        ),
    ],
)
def test_bad_lines_are_skipped_with_file_and_line_and_the_rest_is_read(
    write_bundle, line: str | bytes, where: str, problem: str
) -> None:
    folder = write_bundle([GOOD, line, GOOD | {"doc_id": "radium_2", "components": [
        {"component_id": "radium_2::p0", "type": "paragraph", "text": "Ra."}]}])  # fmt: skip
    docs, report = read(folder)
    assert list(docs) == ["radium", "radium_2"]
    assert any(
        w.startswith(f"{folder / 'corpus.jsonl'}{where}") and problem in p
        for w, p in skipped(report)
    ), skipped(report)


def test_unknown_component_type_is_skipped_and_the_document_kept(write_bundle, records) -> None:
    folder = write_bundle(
        [
            records.document(
                "warsaw",
                records.paragraph("warsaw::p0", "Capital of Poland."),
                {"component_id": "warsaw::v0", "type": "video", "text": "A film."},
            )
        ]
    )
    docs, report = read(folder)
    assert [c.component_id for c in docs["warsaw"].components] == ["warsaw::p0"]
    assert skipped(report) == [
        (
            f"{folder / 'corpus.jsonl'}:1 component 1 (warsaw::v0)",
            "unknown component type 'video'; expected one of paragraph, table, image",
        )
    ]


def test_cell_links_with_the_wrong_number_of_rows_are_dropped_and_the_table_kept(
    write_bundle, records
) -> None:
    table = records.table(
        "nobel::t0",
        ["Year", "Laureate"],
        [["1903", "Pierre Curie"], ["1903", "Marie Curie"], ["1904", "Lord Rayleigh"]],
        cell_links=[[[], ["pierre_curie"]], [[], ["marie_curie"]]],
    )
    folder = write_bundle([records.document("nobel", table)])
    docs, report = read(folder)
    component = docs["nobel"].components[0]
    assert component.table is not None and component.table.cell_links == ()
    assert component.links == ()
    assert skipped(report) == [
        (
            f"{folder / 'corpus.jsonl'}:1 component 0 (nobel::t0)",
            "cell_links has 2 rows, table has 3; cell links ignored",
        )
    ]


def test_table_without_rows_is_skipped(write_bundle, records) -> None:
    folder = write_bundle(
        [records.document("nobel", records.paragraph("n::p0", "Prize."), records.table(
            "n::t0", ["Year"], []))]
    )  # fmt: skip
    docs, report = read(folder)
    assert len(docs["nobel"].components) == 1
    assert skipped(report)[0][1] == "table without rows"


@pytest.fixture
def image_bundle(
    tmp_path: Path, write_bundle, records, write_png, write_bomb_png
) -> Callable[[str], tuple[dict[str, Document], IngestReport]]:
    """Return a reader of a one-document bundle whose image component points at a path."""
    write_png(tmp_path / "outside.png")
    write_png(tmp_path / "bundle" / "images" / "big.png", (200, 200))
    write_bomb_png(tmp_path / "bundle" / "images" / "bomb.png")
    (tmp_path / "bundle" / "images" / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * 64)

    def read_with(path: str, caption: str = "", **guard: int):
        folder = write_bundle(
            [
                records.document(
                    "warsaw",
                    records.paragraph("warsaw::p0", "Capital of Poland."),
                    records.image("warsaw::i0", path, caption),
                )
            ]
        )
        return read(folder, **guard)

    return read_with


@pytest.mark.parametrize(
    ("path", "guard", "problem"),
    [
        ("images/missing.png", {}, "file not found"),
        ("images/corrupt.png", {}, "corrupt or unsupported image"),
        ("../outside.png", {}, "path escapes the corpus folder"),
        ("images/../../outside.png", {}, "path escapes the corpus folder"),
        ("images/bomb.png", {}, "decompression bomb"),
        ("images/big.png", {"max_pixels": 10_000}, "200x200 pixels exceeds 10,000"),
        ("images/big.png", {"max_bytes": 100}, "over the 100 bytes limit"),
    ],
)
def test_unusable_images_keep_their_caption_or_are_skipped(
    image_bundle, path: str, guard: dict[str, int], problem: str
) -> None:
    docs, report = image_bundle(path, "Flag of Warsaw", **guard)
    image = docs["warsaw"].components[1]
    assert (image.kind, image.text, image.image_path) == ("image", "Flag of Warsaw", None)
    ((where, message),) = skipped(report)
    assert where.endswith("corpus.jsonl:1 component 1 (warsaw::i0)")
    assert message.startswith(f"image {path!r}: ") and problem in message

    docs, report = image_bundle(path, "", **guard)
    assert [c.kind for c in docs["warsaw"].components] == ["paragraph"]
    assert [p for _, p in skipped(report)][-1] == "image with neither a usable file nor a caption"


def test_missing_corpus_file_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusFormatError, match="no such file; a bundle needs corpus.jsonl"):
        list(read_bundle(tmp_path / "corpus.jsonl", IngestReport(), ImageGuard(tmp_path)))


def test_mini_bundle_questions_point_at_its_components() -> None:
    docs, _ = read(MINI)
    components = {c.component_id for doc in docs.values() for c in doc.components}
    lines = (MINI / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line) for line in lines]
    assert 3 <= len(questions) <= 5 and len({q["qid"] for q in questions}) == len(questions)
    for question in questions:
        assert set(question["gold_components"]) <= components, question["qid"]
        assert set(question["gold_docs"]) == {c.split("::")[0] for c in question["gold_components"]}


def test_a_pdf_documents_textless_pages_are_read_back(tmp_path: Path) -> None:
    record = {
        "doc_id": "deck",
        "page_count": 3,
        "textless_pages": [1, 2],
        "components": [{"component_id": "deck::p0", "type": "paragraph", "text": "Slides"}],
    }
    (tmp_path / "corpus.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    docs, report = read(tmp_path)
    assert report.skipped == [] and docs["deck"].textless_pages == (1, 2)
