"""Filings end to end on two synthetic 10-Ks: identity on the graph, routing, page ranking."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from fpdf import FPDF

from graph_agent.filing_scope import with_filing_scope
from state.settings import RunSettings
from tools.corpus_index import CorpusIndex, open_index
from tools.filing_catalog import filings_of, route_question
from tools.filing_pages import document_pages
from tools.page_fusion import PageFusion, page_first
from tools.page_ranking import rank_pages
from tools.statements import BALANCE, INCOME

QUESTION = "What were Zeta Tools' inventories at the end of FY2023 based on the balance sheet?"


def _line(pdf: FPDF, text: str, bold: bool = False, size: int = 10) -> None:
    pdf.set_font("Helvetica", "B" if bold else "", size)
    pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")


def _table(pdf: FPDF, title: str, rows: list[tuple[str, str, str]], year: int) -> None:
    _line(pdf, title, bold=True, size=12)
    pdf.set_font("Helvetica", size=10)
    for label, *values in [("(in millions)", f"December 31, {year}", str(year - 1)), *rows]:
        pdf.cell(90, 5, label)
        for value in values:
            pdf.cell(45, 5, value, align="R")
        pdf.ln(5)


def write_10k(path: Path, registrant: str, year: int = 2023) -> Path:
    """Write a cover, a balance sheet, an income statement and a narrative page."""
    pdf = FPDF()
    pdf.add_page()
    for text in (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "FORM 10-K",
        f"For the fiscal year ended December 31, {year}",
        registrant,
        "(Exact name of registrant as specified in its charter)",
    ):
        _line(pdf, text)
    pdf.add_page()
    _table(
        pdf,
        "CONSOLIDATED BALANCE SHEETS",
        [
            ("Inventories", "1,200", "1,100"),
            ("Accounts receivable, net", "800", "700"),
            ("Total current assets", "3,000", "2,800"),
            ("Total assets", "9,000", "8,500"),
        ],
        year,
    )
    pdf.add_page()
    _table(
        pdf,
        "CONSOLIDATED STATEMENTS OF OPERATIONS",
        [
            ("Net sales", "5,000", "4,600"),
            ("Cost of sales", "3,100", "2,900"),
            ("Gross profit", "1,900", "1,700"),
            ("Operating income", "900", "800"),
        ],
        year,
    )
    pdf.add_page()
    _line(pdf, "Risk Factors", bold=True, size=12)
    pdf.multi_cell(0, 5, "Demand for our tools may fall when housing starts slow down.")
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def filings_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from corpus_builder.build import BuildOptions, build

    folder = tmp_path_factory.mktemp("two_10ks")
    write_10k(folder / "acme_2023_10k.pdf", "ACME WIDGETS, INC.")
    write_10k(folder / "zeta_2023_10k.pdf", "ZETA TOOLS CORPORATION")
    build(folder, folder / "index", BuildOptions(text_embedder="hash:64", show_progress=False))
    return folder / "index"


@pytest.fixture
def index(filings_index: Path) -> CorpusIndex:
    return open_index(filings_index)


def test_identity_is_on_the_document_node(index: CorpusIndex) -> None:
    filings = filings_of(index.graph)
    assert filings["zeta_2023_10k"].registrant == "ZETA TOOLS CORPORATION"
    assert (filings["acme_2023_10k"].form, filings["acme_2023_10k"].fiscal_year) == ("10-K", 2023)


def test_pages_know_their_statement(index: CorpusIndex) -> None:
    statements = {page.key: page.statement for page in document_pages(index.graph, "zeta_2023_10k")}
    assert statements["zeta_2023_10k#1"] == BALANCE
    assert statements["zeta_2023_10k#2"] == INCOME


def test_page_words_come_from_the_build_without_analysing_page_texts(
    index: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tools.filing_pages as filing_pages

    terms = index.component_terms()
    assert terms is not None
    pages = [replace(page) for page in document_pages(index.graph, "acme_2023_10k")]
    analysed = filing_pages.page_words([replace(page) for page in pages])

    def refuse(*_: object) -> None:
        raise AssertionError("a stored page's text was analysed again")

    monkeypatch.setattr(filing_pages, "analyze", refuse)
    assert filing_pages.page_words(pages, terms.page) == analysed
    assert {"inventori", "balanc", "sheet"} <= set(analysed[1])


def test_route_then_pages_put_the_balance_sheet_of_the_named_company_first(
    index: CorpusIndex,
) -> None:
    route = route_question(index.graph, QUESTION)
    assert route is not None and route.documents == ("zeta_2023_10k",)
    ranked = rank_pages(index, QUESTION, route.documents, route)
    assert ranked[0].key == "zeta_2023_10k#1"
    assert ranked[0].component.startswith("zeta_2023_10k::")


def test_scope_and_page_order_of_a_system_ranking(index: CorpusIndex, filings_index: Path) -> None:
    context = with_filing_scope(RunSettings(index_dir=str(filings_index)), QUESTION)
    assert context.doc_scope == ("zeta_2023_10k",)
    off = RunSettings(index_dir=str(filings_index), filing_routing=False)
    assert with_filing_scope(off, QUESTION).doc_scope is None
    unnamed = with_filing_scope(RunSettings(index_dir=str(filings_index)), "What are inventories?")
    assert unnamed.doc_scope is None
    scoped = index.scoped(context.doc_scope)
    risk = [c for c in scoped.graph.children("zeta_2023_10k") if scoped.graph.pages(c) == (3, 3)]
    order = page_first(scoped, QUESTION, risk, k=3, fusion=PageFusion(system=1.0))
    pages = list(dict.fromkeys(key for c in order for key in index.graph.page_keys(c)))
    assert pages[:2] == ["zeta_2023_10k#3", "zeta_2023_10k#1"]  # its own page, then the sheet
    # by default the page ranking orders the pages: the balance sheet the question asks of
    order = page_first(scoped, QUESTION, risk, k=3)
    assert index.graph.page_keys(order[0]) == ["zeta_2023_10k#1"]


def test_an_index_built_without_identities_gets_them_without_rebuilding(
    filings_index: Path, tmp_path: Path
) -> None:
    import shutil

    from corpus_builder.filing_identity import annotate_graph
    from tools.layered_graph import LayeredGraph

    index_dir = tmp_path / "index"
    shutil.copytree(filings_index, index_dir)
    graph = LayeredGraph.load(index_dir / "graph.json")
    for doc_id in graph.documents():
        graph.g.nodes[doc_id].pop("filing", None)
    graph.save(index_dir / "graph.json")
    assert annotate_graph(index_dir / "graph.json", filings_index.parent) == 2
    annotated = LayeredGraph.load(index_dir / "graph.json")
    assert annotated.g.nodes["acme_2023_10k"]["filing"]["registrant"] == "ACME WIDGETS, INC."


def test_an_unknown_page_weight_is_refused(index: CorpusIndex, filings_index: Path) -> None:
    from state.core import ranked_entry
    from tools.errors import ConfigError
    from tools.page_fusion import page_first_ranked

    context = RunSettings(
        index_dir=str(filings_index), page_ranking=True, page_weights={"chunks": 1.0}
    )
    entry = ranked_entry("zeta_2023_10k::p0", "zeta_2023_10k", "paragraph", 1.0)
    with pytest.raises(ConfigError, match="chunks"):
        page_first_ranked(index, QUESTION, [entry], context)


@pytest.fixture(scope="module")
def two_years_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from corpus_builder.build import BuildOptions, build

    folder = tmp_path_factory.mktemp("zeta_two_years")
    write_10k(folder / "zeta_2022_10k.pdf", "ZETA TOOLS CORPORATION", 2022)
    write_10k(folder / "zeta_2023_10k.pdf", "ZETA TOOLS CORPORATION", 2023)
    build(folder, folder / "index", BuildOptions(text_embedder="hash:64", show_progress=False))
    return folder / "index"


def test_a_run_is_scoped_to_the_filing_of_the_asked_period(two_years_index: Path) -> None:
    settings = RunSettings(index_dir=str(two_years_index))
    asked = with_filing_scope(settings, "What were Zeta Tools' inventories at the end of FY2022?")
    assert asked.doc_scope == ("zeta_2022_10k",)
    no_period = with_filing_scope(settings, "Where does Zeta Tools sell its tools?")
    assert set(no_period.doc_scope or ()) == {"zeta_2022_10k", "zeta_2023_10k"}


def test_fif_ask_says_which_filing_it_searches(two_years_index: Path) -> None:
    from typer.testing import CliRunner

    from fif import cli

    question = "What were Zeta Tools' inventories at the end of FY2022?"
    result = CliRunner().invoke(cli.app, ["ask", question, "--index", str(two_years_index)])
    assert result.exit_code == 0, result.output
    assert "searching 1 filing(s) the question names: zeta_2022_10k" in result.output
    assert "zeta_2023_10k::" not in result.output


def test_filings_of_a_scope_come_in_the_route_order_not_the_set_order(index: CorpusIndex) -> None:
    from tools.filing_routing import FilingRoute
    from tools.page_fusion import filing_documents

    scoped = index.scoped(["acme_2023_10k", "zeta_2023_10k"])
    for order in (("zeta_2023_10k", "acme_2023_10k"), ("acme_2023_10k", "zeta_2023_10k")):
        route = FilingRoute(order, dict.fromkeys(order, 1.0))
        assert filing_documents(scoped, route, []) == list(order)
    assert filing_documents(scoped, None, []) == ["acme_2023_10k", "zeta_2023_10k"]


def test_a_filing_below_other_documents_leaves_an_unrouted_ranking_alone(
    index: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tools import page_fusion

    monkeypatch.setattr(page_fusion, "filings_of", lambda graph: {"zeta_2023_10k": None})
    other = index.graph.children("acme_2023_10k")[:2]  # stands for a web page or a paper
    filing = index.graph.children("zeta_2023_10k")[:1]
    assert page_fusion.filing_documents(index, None, [*other, *filing]) == []
    assert page_fusion.page_first(index, "What are inventories?", [*other, *filing], 3) == [
        *other,
        *filing,
    ]
    assert page_fusion.filing_documents(index, None, [*filing, *other]) == ["zeta_2023_10k"]
