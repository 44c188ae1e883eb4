from corpus_builder.pdf_contents import contents_entries, contents_headings, page_offset
from corpus_builder.pdf_furniture import strip_furniture
from corpus_builder.pdf_pages import PdfLine, PdfPage
from corpus_builder.pdf_sections import Heading, detect_headings

CONTENTS = [
    "Item 1. Business 1",
    "Item 1A. Risk Factors 2",
    "Item 7. Management's Discussion and Analysis 3",
    "Item 8. Financial Statements 4",
]


def page(index: int, texts: list[str], printed: int | None) -> PdfPage:
    result = PdfPage(index, 792.0)
    footer = [str(printed)] if printed is not None else []
    result.lines = [
        PdfLine(text, index, 700.0 - 12 * n, 690.0 - 12 * n, 50.0, 10.0, False)
        for n, text in enumerate([*texts, *footer])
    ]
    return result


def filing(item_headings_printed: bool) -> list[PdfPage]:
    """Cover, contents, then four numbered pages (printed 1-4 on file pages 2-5)."""
    bodies = [
        ["Our business is anvils.", "We sell them widely."],
        ["Risks abound in anvils.", "Prices may fall."],
        ["Sales grew this year.", "Margins held."],
        ["The statements follow.", "They are audited."],
    ]
    if item_headings_printed:
        pairs = zip(CONTENTS, bodies, strict=True)
        bodies = [[title.rsplit(" ", 1)[0], *body] for title, body in pairs]
    pages = [page(0, ["ACME Corp Form 10-K"], None), page(1, ["Contents", *CONTENTS], None)]
    return pages + [page(2 + n, body, n + 1) for n, body in enumerate(bodies)]


def test_entries_and_offset_are_read_from_the_contents_and_page_numbers() -> None:
    pages = filing(item_headings_printed=False)
    lines, _ = strip_furniture(pages)
    assert contents_entries(lines)[2] == (1, "Item 7. Management's Discussion and Analysis", 3)
    assert page_offset(pages) == 1


def test_missing_item_headings_open_sections_at_their_printed_page() -> None:
    pages = filing(item_headings_printed=False)
    lines, _ = strip_furniture(pages)
    found, _ = detect_headings(lines)
    added = contents_headings(lines, pages, found)
    placed = {lines[index].page: heading for index, heading in added.items()}
    assert placed[4] == Heading(
        1, "Item 7. Management's Discussion and Analysis", ("item", "7"), keeps_line=True
    )
    assert sorted(placed) == [2, 3, 4, 5]


def test_found_item_headings_are_not_second_guessed() -> None:
    pages = filing(item_headings_printed=True)
    lines, _ = strip_furniture(pages)
    found, _ = detect_headings(lines)
    assert len(found) == 4
    assert contents_headings(lines, pages, found) == {}
