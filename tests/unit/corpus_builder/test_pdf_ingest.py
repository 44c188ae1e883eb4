import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from corpus_builder.pdf_ingest import read_pdf_document, read_pdfs
from corpus_builder.pdf_pages import PdfLimits, PdfReadError
from corpus_builder.pdf_reader import read_pdf
from state.corpus import Document, IngestReport
from tools.errors import CorpusFormatError, MissingDependencyError


def ingest(path: Path) -> tuple[Document, IngestReport]:
    report = IngestReport()
    document = read_pdf_document(path, report)
    assert document is not None
    return document, report


def by_text(document: Document, fragment: str) -> list[str]:
    return [c.component_id for c in document.components if fragment in c.text]


def test_document_id_is_the_file_stem_and_the_title_the_big_first_line(filing_pdf: Path) -> None:
    document, _ = ingest(filing_pdf)
    assert document.doc_id == "acme_2023_10k"
    assert document.title == "ACME Corp Annual Report 2023"
    assert document.page_count == 3


def test_item_and_note_lines_become_nested_sections(filing_pdf: Path) -> None:
    document, _ = ingest(filing_pdf)
    sections = {c.section for c in document.components}
    assert ("Item 7. Management's Discussion and Analysis",) in sections
    assert ("Item 8. Financial Statements", "Note 2 - Revenue Recognition") in sections
    # A heading is a section title, not a paragraph of its own.
    assert not by_text(document, "Item 8. Financial Statements")


def test_running_header_footer_and_page_numbers_are_not_content(filing_pdf: Path) -> None:
    document, _ = ingest(filing_pdf)
    texts = " ".join(c.text for c in document.components)
    assert "Table of Contents" not in texts
    assert "Form 10-K |" not in texts


def test_a_table_crossing_a_page_break_stays_one_table_with_row_pages(filing_pdf: Path) -> None:
    document, _ = ingest(filing_pdf)
    tables = [c for c in document.components if c.kind == "table"]
    assert len(tables) == 1
    table = tables[0].table
    assert table is not None
    assert table.header == ("", "2023", "2022")
    assert len(table.rows) == 40
    assert table.rows[0] == ("Anvil model A0", "$1,000", "(50)")
    assert tables[0].pages == (0, 1)
    assert table.row_pages[0] == 0 and table.row_pages[-1] == 1
    assert list(table.row_pages) == sorted(table.row_pages)


def test_page_spans_are_zero_indexed_and_ordered(filing_pdf: Path) -> None:
    document, _ = ingest(filing_pdf)
    [note] = by_text(document, "We recognise revenue")
    component = next(c for c in document.components if c.component_id == note)
    assert component.pages == (2, 2)  # cover + table page, table tail, then Item 8
    spans = [c.pages for c in document.components]
    assert all(span is not None and span[0] <= span[1] for span in spans)
    assert [s[0] for s in spans if s] == sorted(s[0] for s in spans if s)


def test_link_annotation_and_see_note_mention_refer_to_their_sections(filing_pdf: Path) -> None:
    document, _ = ingest(filing_pdf)
    comps = {c.component_id: c for c in document.components}
    [linked] = by_text(document, "Financial statements are in Item 8")
    [item8_first] = by_text(document, "generally accepted accounting principles")
    [mentions] = by_text(document, "see Note 2")
    [note2_first] = by_text(document, "We recognise revenue")
    assert item8_first in comps[linked].refers_to
    assert note2_first in comps[mentions].refers_to


def test_a_page_without_text_is_reported_and_the_rest_kept(
    tmp_path: Path, filing_writer: Callable[..., Path]
) -> None:
    document, report = ingest(filing_writer(tmp_path / "gap.pdf", blank_page=True))
    assert [r.problem for r in report.repaired if "without a text layer" in r.problem]
    assert "(zero-indexed: 3)" in report.repaired[0].problem
    assert by_text(document, "after the blank one")[0]
    last = document.components[-1]
    assert last.pages == (4, 4)


def test_encrypted_pdf_is_a_named_error(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.cell(0, 5, "secret")
    pdf.set_encryption(owner_password="owner", user_password="user")
    path = tmp_path / "locked.pdf"
    pdf.output(str(path))
    with pytest.raises(PdfReadError, match="encrypted"):
        read_pdf(path)


def test_truncated_and_corrupt_files_are_skipped_and_the_folder_builds(
    tmp_path: Path, filing_pdf: Path
) -> None:
    good = filing_pdf.read_bytes()
    (tmp_path / "truncated.pdf").write_bytes(good[:300])
    (tmp_path / "noise.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 4)
    report = IngestReport()
    paths = sorted(tmp_path.glob("*.pdf"))
    documents = read_pdfs(paths, report)
    assert [d.doc_id for d in documents] == ["acme_2023_10k"]
    skipped = {Path(s.where).name: s.problem for s in report.skipped}
    assert set(skipped) == {"truncated.pdf", "noise.pdf"}
    assert all("PDF" in problem or "text" in problem for problem in skipped.values())
    assert not any(str(tmp_path) in problem for problem in skipped.values())  # named once


def test_a_corrupt_pdf_in_a_build_names_its_path_once(tmp_path: Path, hash_build) -> None:
    (tmp_path / "filings").mkdir()
    bad = tmp_path / "filings" / "bad.pdf"
    bad.write_bytes(b"not a pdf")
    with pytest.raises(CorpusFormatError, match="not a readable PDF") as raised:
        hash_build(bad.parent, tmp_path / "index")
    assert str(raised.value).count(str(bad)) == 1


def test_a_scanned_pdf_without_any_text_is_skipped_with_the_reason(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 100, style="F")
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    report = IngestReport()
    assert read_pdfs([path], report) == []
    assert "no text layer" in report.skipped[0].problem


def test_limits_skip_files_over_the_page_count(filing_pdf: Path) -> None:
    with pytest.raises(PdfReadError, match="over the 2-page limit"):
        read_pdf(filing_pdf, PdfLimits(max_pages=2))


def test_a_damaged_page_is_reported_and_the_other_pages_kept(
    filing_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pypdfium2

    from corpus_builder import pdf_reader

    real = pdf_reader._read_page

    def damaged(document: pypdfium2.PdfDocument, index: int) -> pdf_reader.PdfPage:
        if index == 1:
            raise pypdfium2.PdfiumError("Failed to load page.")
        return real(document, index)

    monkeypatch.setattr(pdf_reader, "_read_page", damaged)
    document, report = ingest(filing_pdf)
    assert [r.problem for r in report.repaired] == [
        "1 page(s) (zero-indexed: 1) cannot be loaded (damaged)"
    ]
    assert {c.pages for c in document.components} >= {(0, 0), (2, 2)}
    assert all(c.pages is not None and 1 not in c.pages for c in document.components)


def test_reading_a_pdf_without_the_pdf_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, filing_pdf: Path
) -> None:
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # import pypdfium2 now fails
    monkeypatch.setitem(sys.modules, "pypdfium2.raw", None)
    monkeypatch.delitem(sys.modules, "corpus_builder.pdf_reader", raising=False)
    hint = r"pip install -c constraints.txt -e '\.\[pdf\]' in the FiF checkout"
    with pytest.raises(MissingDependencyError, match=hint):
        read_pdfs([filing_pdf], IngestReport())
