import pytest

from corpus_builder.pdf_furniture import strip_furniture
from corpus_builder.pdf_pages import PdfLine, PdfPage, same_printed_line
from corpus_builder.pdf_sections import (
    Heading,
    classify,
    detect_headings,
    outline_headings,
    plausible_outline,
)


def line(text: str, page: int = 0, size: float = 10.0, bold: bool = False) -> PdfLine:
    return PdfLine(text, page, top=700.0, bottom=690.0, left=50.0, size=size, bold=bold)


@pytest.mark.parametrize(
    ("text", "size", "bold", "expected"),
    [
        ("PART II", 10, True, Heading(0, "PART II")),
        ("Item 7. Management's Discussion", 10, False,
         Heading(1, "Item 7. Management's Discussion", ("item", "7"))),
        ("ITEM 7A. QUANTITATIVE DISCLOSURES", 10, True,
         Heading(1, "ITEM 7A. QUANTITATIVE DISCLOSURES", ("item", "7a"))),
        ("Note 12 — Income Taxes", 10, False, Heading(2, "Note 12 — Income Taxes", ("note", "12"))),
        ("Results of Operations", 13, False, Heading(2, "Results of Operations")),
        ("Liquidity and Capital", 10, True, Heading(3, "Liquidity and Capital")),
        ("Item 7. Management's Discussion and Analysis 25", 10, False, None),  # printed TOC entry
        ("Net sales $ 1,234 $ 1,100", 10, True, None),  # a bold table row
        ("Current assets:", 10, True, None),
        ("Our revenue grew in every region because demand stayed strong.", 10, False, None),
        ("item 7 of this report describes it", 10, False, None),
    ],
)  # fmt: skip
def test_classify(text: str, size: float, bold: bool, expected: Heading | None) -> None:
    assert classify(line(text, size=size, bold=bold), body=10.0) == expected


def test_a_bare_item_line_takes_the_next_line_as_its_title() -> None:
    lines = [line("Item 8."), line("Financial Statements"), line("Text follows here in full.")]
    headings, merged = detect_headings(lines)
    assert headings == {0: Heading(1, "Item 8. Financial Statements", ("item", "8"))}
    assert merged == {1}


def test_a_bold_run_in_term_opening_a_paragraph_is_not_a_heading() -> None:
    lines = [line("Separation from Service", bold=True), line("means the day employment ends.")]
    assert detect_headings(lines)[0] == {}


def test_outline_entries_land_on_the_line_printing_their_title() -> None:
    lines = [line("Cover text", 0), line("Intro", 1), line("Item 1. Business", 1), line("x", 2)]
    outline = [(1, "Item 1. Business", 1), (1, "Risk Factors", 2), (1, "Other", 2)]
    headings = outline_headings(lines, outline)
    assert headings[2] == Heading(0, "Item 1. Business", ("item", "1"))
    assert headings[3] == Heading(0, "Risk Factors", None, keeps_line=True)  # not printed


@pytest.mark.parametrize(
    ("outline", "plausible"),
    [
        ([(0, "Whole file", 0)], False),
        ([(0, "a", 0), (0, "b", 0), (0, "c", 0)], False),
        ([(0, "a", 0), (0, "b", 3), (1, "c", 5)], True),
    ],
)
def test_plausible_outline(outline: list[tuple[int, str, int]], plausible: bool) -> None:
    assert plausible_outline(outline) is plausible


def test_repeated_edge_lines_and_page_numbers_are_furniture() -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    pages = []
    for n, word in enumerate(words):
        page = PdfPage(n, 792.0)
        page.lines = [
            line("Table of Contents", n),
            *(line(f"{word} body line {k} about {word}.", n) for k in range(6)),
            line(f"Total {word} $ {n},100 $ {n},200", n),
            line(f"ACME Corp | Form 10-K | {n + 1}", n),
            line(str(n + 1), n),
        ]
        pages.append(page)
    kept, removed = strip_furniture(pages)
    assert removed == 3 * len(words)
    texts = [x.text for x in kept if x.page == 2]
    assert texts[0] == "gamma body line 0 about gamma."
    assert texts[-1] == "Total gamma $ 2,100 $ 2,200"


def test_item_lines_on_a_printed_contents_page_are_entries_even_when_wrapped() -> None:
    contents = [
        line("Item 1. Business 3", 1),
        line("Item 1A. Risk Factors 11", 1),
        line("Item 5. Market for Registrant's Common Equity, Related Stockholder", 1),
        line("Matters and Issuer Purchases of Equity Securities 27", 1),
        line("Item 7. Management's Discussion 31", 1),
        line("Item 8. Financial Statements 52", 1),
    ]
    body = [line("Item 5. Market for Registrant's Common Equity", 27), line("We list...", 27)]
    headings, _ = detect_headings([*contents, *body])
    assert list(headings) == [len(contents)]


def test_words_pdfium_splits_off_one_printed_line_are_joined_again() -> None:
    first = line("Item")
    assert same_printed_line(first, PdfLine("1.", 0, 700.2, 690.1, 80.0, 10.0, False))
    assert not same_printed_line(first, PdfLine("next", 0, 688.0, 678.0, 50.0, 10.0, False))
    assert not same_printed_line(first, PdfLine("left", 0, 700.0, 690.0, 20.0, 10.0, False))
