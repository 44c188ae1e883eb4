from state.corpus import Table
from state.render import row_text, table_text

HEADER = ("Year", "Laureate", "Country")


def test_row_text_pairs_cells_with_columns_and_drops_empty_cells() -> None:
    assert row_text(HEADER, ("1903", "", "France")) == "Year: 1903 | Country: France"


def test_row_text_names_columns_missing_from_the_header() -> None:
    assert row_text(("Year", ""), ("1903", "Marie Curie", "Poland")) == (
        "Year: 1903 | column 2: Marie Curie | column 3: Poland"
    )


def test_table_text_caps_the_rows_and_says_how_many_were_left_out() -> None:
    rows = [(str(1901 + n), f"laureate {n}", "") for n in range(5)]
    text = table_text(HEADER, rows, max_rows=2)
    assert text.splitlines() == [
        "Year | Laureate | Country",
        "Year: 1901 | Laureate: laureate 0",
        "Year: 1902 | Laureate: laureate 1",
        "... (3 more rows)",
    ]
    assert table_text((), [("a",)]) == "column 1: a"


def test_row_links_are_distinct_in_cell_order_and_empty_past_the_links() -> None:
    table = Table(
        HEADER,
        (("1903", "Pierre Curie; Marie Curie", "France"),),
        ((("nobel",), ("pierre_curie", "marie_curie", "pierre_curie"), ("france",)),),
    )
    assert table.row_links(0) == ("nobel", "pierre_curie", "marie_curie", "france")
    assert table.row_links(1) == ()
    assert Table(HEADER, (("1903", "x", "y"),)).row_links(0) == ()
