from corpus_builder.summaries import (
    SUMMARY_MAX_CHARS,
    ExtractiveSummarizer,
    Summarizer,
    clip,
)
from state.corpus import Component, Document, Table


def document(*components: Component, title: str = "Marie Curie") -> Document:
    return Document("marie_curie", title, components=components)


def para(n: int, text: str) -> Component:
    return Component(f"marie_curie::p{n}", "marie_curie", "paragraph", n, text=text)


def test_summary_is_title_lead_sentences_table_columns_and_image_captions() -> None:
    doc = document(
        para(0, "Marie Curie was a physicist. She was born in Warsaw. She died in 1934."),
        para(1, "A later paragraph that the summary leaves out."),
        Component(
            "marie_curie::t0",
            "marie_curie",
            "table",
            2,
            text="Awards",
            table=Table(("Year", "Award", ""), (("1903", "Nobel Prize", ""),)),
        ),
        Component("marie_curie::i0", "marie_curie", "image", 3, text="Curie in her laboratory"),
    )
    summary = ExtractiveSummarizer().summarize(doc)
    assert summary == (
        "Marie Curie. Marie Curie was a physicist. She was born in Warsaw. "
        "Table: Awards (Year, Award). Image: Curie in her laboratory."
    )


def test_summary_without_paragraphs_names_untitled_tables() -> None:
    table = Component("d::t0", "d", "table", 0, table=Table((), (("1903", "Marie Curie"),)))
    assert ExtractiveSummarizer().summarize(document(table, title="Laureates")) == (
        "Laureates. Table: table."
    )


def test_summary_length_is_bounded_and_cut_at_a_word() -> None:
    long = " ".join(["Radioactivity"] * 400) + "."
    summary = ExtractiveSummarizer().summarize(document(para(0, long)))
    assert len(summary) <= SUMMARY_MAX_CHARS
    assert summary.endswith("Radioactivity…")


def test_clip_normalises_whitespace_and_keeps_short_text() -> None:
    assert clip("  Marie \n Curie ") == "Marie Curie"
    assert clip("alpha beta gamma", limit=12) == "alpha beta…"


def test_extractive_summarizer_implements_the_protocol() -> None:
    summarizer: Summarizer = ExtractiveSummarizer()
    assert summarizer.summarizer_id == "extractive-v1"
