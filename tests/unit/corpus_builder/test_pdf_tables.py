import pytest

from corpus_builder.pdf_tables import RowCells, TableDraft, column_names, row_cells


@pytest.mark.parametrize(
    ("line", "label", "values"),
    [
        ("Cash and cash equivalents $ 2,822,795 $ 1,467,576", "Cash and cash equivalents",
         ("$2,822,795", "$1,467,576")),
        ("Short-term investments — 266,206", "Short-term investments", ("—", "266,206")),
        ("Accumulated loss (20,557) (48,565)", "Accumulated loss", ("(20,557)", "(48,565)")),
        ("Gross margin 32.1 % 30.0 %", "Gross margin", ("32.1%", "30.0%")),
        ("As of December 31, 2017 2016", "As of December 31,", ("2017", "2016")),
        ("Diluted $ 0.19 $ 0.52", "Diluted", ("$0.19", "$0.52")),
        ("Net loss (1,234 ) (56 )", "Net loss", ("(1,234)", "(56)")),
    ],
)  # fmt: skip
def test_a_label_followed_by_numbers_is_a_row(
    line: str, label: str, values: tuple[str, ...]
) -> None:
    assert row_cells(line) == RowCells(label, values)


@pytest.mark.parametrize(
    "line",
    [
        "Total net sales increased 5% compared to 2021",
        "revenue grew strongly in 2022",
        "Commitments and contingencies (Note 5)",
        "We describe these risks in detail.",
        "Assets",
    ],
)
def test_prose_and_labels_are_not_rows(line: str) -> None:
    assert row_cells(line) is None


def test_year_rows_become_the_header_and_short_rows_align_right() -> None:
    draft = TableDraft(header_lines=["Consolidated Balance Sheets"])
    for line, page in (
        ("As of December 31, 2023 2022", 4),
        ("Cash $ 10 $ 9", 4),
        ("Deferred revenue 7", 5),
    ):
        cells = row_cells(line)
        assert cells is not None
        draft.add(cells, page)
    draft.add(RowCells("Liabilities:", ()), 5)
    caption, table = draft.finish()
    assert caption == "Consolidated Balance Sheets As of December 31,"
    assert table.header == ("", "2023", "2022")
    assert table.rows == (("Cash", "$10", "$9"), ("Deferred revenue", "", "7"))
    assert table.row_pages == (4, 5)  # the trailing label-only row is dropped


def test_a_column_header_repeated_atop_a_continued_page_is_not_a_row() -> None:
    draft = TableDraft()
    for line, page in (
        ("As of December 31, 2023 2022", 4),
        ("Cash $ 10 $ 9", 4),
        ("As of December 31, 2023 2022", 5),
        ("Debt 7 6", 5),
    ):
        cells = row_cells(line)
        assert cells is not None
        draft.add(cells, page)
    _, table = draft.finish()
    assert table.header == ("", "2023", "2022")
    assert table.rows == (("Cash", "$10", "$9"), ("Debt", "7", "6"))
    assert table.row_pages == (4, 5)


@pytest.mark.parametrize(
    ("line", "columns", "rest", "names"),
    [
        ("(Dollars in millions) FISCAL 2021 FISCAL 2020 FISCAL 2019", 3,
         "(Dollars in millions)", ["FISCAL 2021", "FISCAL 2020", "FISCAL 2019"]),
        ("As of December 31, 2023 2022", 2, "As of December 31,", ["2023", "2022"]),
        ("Year ended 2023 vs 2022 2022 vs 2021", 2, "Year ended 2023 vs 2022 2022 vs 2021", []),
        ("Accumulated amortization Net", 6, "Accumulated amortization Net", []),
    ],
)  # fmt: skip
def test_column_names(line: str, columns: int, rest: str, names: list[str]) -> None:
    assert column_names(line, columns) == (rest, names)
