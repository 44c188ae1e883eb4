import os
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from corpus_builder.html_pages import decode_page, read_html_pages
from corpus_builder.images import ImageGuard
from state.corpus import Document, IngestReport
from tools.errors import CorpusFormatError

FIXTURE_SITE = Path(__file__).resolve().parents[2] / "fixtures" / "html_site"


def write_page(folder: Path, name: str, body: str, head: str = "") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><head>{head}</head><body>{body}</body></html>", encoding="utf-8")
    return path


def write_png(path: Path, size: tuple[int, int] = (4, 4)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (200, 30, 30)).save(path)
    return path


def read(folder: Path, **guard_args: int) -> tuple[dict[str, Document], IngestReport]:
    report = IngestReport()
    documents = read_html_pages(folder, report, ImageGuard(folder, **guard_args))
    return {doc.doc_id: doc for doc in documents}, report


def problems(items: list) -> str:
    return "\n".join(f"{item.where}: {item.problem}" for item in items)


def test_links_resolve_relative_canonical_and_wiki_forms(tmp_path: Path) -> None:
    write_page(
        tmp_path,
        "wiki/Lyon.html",
        "<p>Lyon.</p>",
        '<link rel="canonical" href="https://example.org/wiki/Lyon">',
    )
    write_page(tmp_path, "cities/Marseille.html", "<p>Marseille.</p>")
    write_page(tmp_path, "topics/index.html", "<p>Topics.</p>")
    write_page(
        tmp_path,
        "wiki/Paris.html",
        '<p>See <a href="Lyon.html?x=1#top">Lyon</a>, <a href="../wiki/Lyon">again</a>,'
        ' <a href="https://example.org/wiki/Lyon#history">canonical</a>,'
        ' <a href="/wiki/Marseille">Marseille</a>, <a href="../topics/">topics</a>,'
        ' <a href="#notes">notes</a>, <a href="Paris.html">self</a>,'
        ' <a href="javascript:void(0)">js</a>.</p>',
    )
    docs, report = read(tmp_path)
    paragraph = docs["wiki/Paris"].components[0]
    assert paragraph.links == ("wiki/Lyon", "cities/Marseille", "topics/index")
    assert paragraph.anchors == (
        ("Lyon", "wiki/Lyon"),
        ("again", "wiki/Lyon"),
        ("canonical", "wiki/Lyon"),
        ("Marseille", "cities/Marseille"),
        ("topics", "topics/index"),
    )
    assert report.unresolved_links == 0


def test_unresolvable_links_are_counted_not_fatal(tmp_path: Path) -> None:
    write_page(
        tmp_path,
        "a.html",
        '<p><a href="missing.html">m</a> <a href="https://elsewhere.org/x">x</a>'
        ' <a href="../../outside.html">o</a> <a href="/wiki/Nowhere">w</a>'
        ' <a href="mailto:someone@example.org">mail</a> text</p>',
    )
    docs, report = read(tmp_path)
    assert docs["a"].components[0].links == ()
    assert report.unresolved_links == 5
    assert report.unresolved_examples[0].endswith("(a::p0) -> missing.html")


def test_table_header_rows_and_cell_links(tmp_path: Path) -> None:
    write_page(tmp_path, "Lyon.html", "<p>Lyon.</p>")
    write_page(
        tmp_path,
        "cities.html",
        """
      <table><caption>Big cities</caption>
        <thead><tr><th>City</th><th>Region</th><th>Population</th></tr></thead>
        <tbody>
          <tr><td><a href="Lyon.html">Lyon</a></td><td>Rhône</td><td>522,000</td></tr>
          <tr><td>Nice</td><td>Alpes</td></tr>
          <tr><td>Lille</td><td>Nord</td><td>236,000</td><td>extra</td></tr>
          <tr><td></td><td></td><td></td></tr>
        </tbody>
      </table>""",
    )
    docs, report = read(tmp_path)
    (table,) = docs["cities"].components
    assert table.component_id == "cities::t0"
    assert table.kind == "table" and table.text == "Big cities"
    assert table.table is not None
    assert table.table.header == ("City", "Region", "Population")
    assert table.table.rows == (
        ("Lyon", "Rhône", "522,000"),
        ("Nice", "Alpes", ""),
        ("Lille", "Nord", "236,000"),
    )
    assert table.table.cell_links == ((("Lyon",), (), ()), ((), (), ()), ((), (), ()))
    assert table.links == ("Lyon",)
    assert "wider than the 3-column header" in problems(report.repaired)


def test_table_without_thead_uses_first_row_and_flattens_nested_tables(tmp_path: Path) -> None:
    write_page(
        tmp_path,
        "t.html",
        """
      <table><tr><td>Name</td><td>Parts</td></tr>
        <tr><td>Set</td><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table>""",
    )
    docs, report = read(tmp_path)
    table = docs["t"].components[0].table
    assert table is not None
    assert table.header == ("Name", "Parts") and table.rows == (("Set", "a b"),)
    assert "nested table flattened" in problems(report.repaired)


def test_paragraphs_lists_quotes_in_order_without_page_chrome(tmp_path: Path) -> None:
    write_page(
        tmp_path,
        "p.html",
        """
      <header><h1>Site</h1></header><nav><a href="x.html">menu</a></nav>
      <script>var x = 1;</script><style>p {}</style>
      <div>Loose   text in a div.</div>
      <p>First <b>bold</b>
         paragraph.</p><p>   </p>
      <ul><li>one</li><li>two <i>items</i></li></ul>
      <blockquote><p>Quoted.</p><p>Twice.</p></blockquote>
      <pre>code   block</pre>
      <aside>aside</aside><footer>footer</footer>""",
    )
    docs, report = read(tmp_path)
    texts = [c.text for c in docs["p"].components]
    assert texts == [
        "Loose text in a div.",
        "First bold paragraph.",
        "one\ntwo items",
        "Quoted. Twice.",
        "code block",
    ]
    assert [c.component_id for c in docs["p"].components][:2] == ["p::p0", "p::p1"]
    assert report.unresolved_links == 0  # the nav link was never read


def test_figure_caption_alt_and_title(tmp_path: Path) -> None:
    write_png(tmp_path / "img" / "a.png")
    write_page(
        tmp_path,
        "pics/page.html",
        """
      <figure><img src="../img/a.png" alt="alt a"><figcaption>Caption a</figcaption></figure>
      <p>Text <img src="../img/a.png" alt="inline alt"></p>
      <img src="/img/a.png" title="title only">
      <img src="../img/a.png">""",
    )
    docs, report = read(tmp_path)
    components = docs["pics/page"].components
    assert [(c.kind, c.text) for c in components] == [
        ("image", "Caption a"),
        ("paragraph", "Text"),
        ("image", "inline alt"),
        ("image", "title only"),
        ("image", ""),
    ]
    expected = str((tmp_path / "img" / "a.png").resolve())
    assert all(c.image_path == expected for c in components if c.kind == "image")
    assert components[0].component_id == "pics/page::i0"
    assert report.skipped == []


@pytest.mark.parametrize(
    ("src", "problem"),
    [
        ("missing.png", "file not found"),
        ("../outside.png", "escapes the corpus folder"),
        ("corrupt.png", "corrupt or unsupported image"),
    ],
)
def test_bad_images_are_reported_and_kept_only_with_text(
    tmp_path: Path, src: str, problem: str
) -> None:
    site = tmp_path / "site"
    write_png(tmp_path / "outside.png")
    site.mkdir()
    (site / "corrupt.png").write_bytes(os.urandom(512))
    write_page(
        site, "page.html", f'<p>Intro.</p><img src="{src}" alt="described"><img src="{src}">'
    )
    docs, report = read(site)
    images = [c for c in docs["page"].components if c.kind == "image"]
    assert [(c.text, c.image_path) for c in images] == [("described", None)]
    assert len(report.skipped) == 2
    assert all(problem in item.problem for item in report.skipped)


def test_decompression_bomb_is_refused(tmp_path: Path) -> None:
    write_png(tmp_path / "big.png", (200, 200))
    write_page(tmp_path, "page.html", '<img src="big.png" alt="large">')
    docs, report = read(tmp_path, max_pixels=10_000)
    assert docs["page"].components[0].image_path is None
    assert "decompression bomb" in problems(report.skipped)


def test_crafted_png_header_claiming_huge_size_is_refused(tmp_path: Path) -> None:
    png = write_png(tmp_path / "bomb.png").read_bytes()
    ihdr = b"IHDR" + struct.pack(">II", 20_000, 20_000) + png[24:29]
    crafted = png[:12] + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + png[33:]
    (tmp_path / "bomb.png").write_bytes(crafted)
    write_page(tmp_path, "page.html", '<p>Text.</p><img src="bomb.png">')
    docs, report = read(tmp_path)
    assert [c.kind for c in docs["page"].components] == ["paragraph"]
    assert "bomb" in problems(report.skipped)


def test_data_uri_and_remote_images_are_caption_only(tmp_path: Path) -> None:
    write_page(
        tmp_path,
        "page.html",
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">'
        '<img src="https://cdn.example.org/a.png" alt="remote">'
        '<img src="//cdn.example.org/b.png">',
    )
    docs, report = read(tmp_path)
    images = docs["page"].components
    assert [(c.text, c.image_path) for c in images] == [("inline", None), ("remote", None)]
    assert len(report.repaired) == 2 and len(report.skipped) == 1


def test_cp1252_page_without_charset_is_decoded_and_noted(tmp_path: Path) -> None:
    (tmp_path / "cafe.html").write_bytes(
        "<html><body><p>Un café à Paris – 5 €</p></body></html>".encode("cp1252")
    )
    docs, report = read(tmp_path)
    assert docs["cafe"].components[0].text == "Un café à Paris – 5 €"
    assert [(item.where, item.problem) for item in report.repaired] == [
        (str(tmp_path / "cafe.html"), "not UTF-8: decoded as windows-1252")
    ]


def test_declared_latin1_charset_is_honoured(tmp_path: Path) -> None:
    (tmp_path / "declared.html").write_bytes(
        '<html><head><meta charset="iso-8859-1"><title>Café</title></head>'
        "<body><p>Crème brûlée</p></body></html>".encode("latin-1")
    )
    (tmp_path / "equiv.html").write_bytes(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        "</head><body><p>naïve</p></body></html>".encode("cp1252")
    )
    docs, report = read(tmp_path)
    assert docs["declared"].title == "Café"
    assert docs["declared"].components[0].text == "Crème brûlée"
    assert docs["equiv"].components[0].text == "naïve"
    assert report.repaired == []


def test_decode_page_handles_bom_unknown_charset_and_utf8() -> None:
    assert decode_page("é".encode("utf-8-sig")) == ("é", None)
    assert decode_page("<p>é</p>".encode()) == ("<p>é</p>", None)
    text, note = decode_page(b'<meta charset="klingon"><p>x</p>')
    assert text.endswith("<p>x</p>") and note == "unknown charset 'klingon': decoded as utf-8"


def test_empty_and_unreadable_pages_are_skipped(tmp_path: Path) -> None:
    write_page(tmp_path, "empty.html", "<nav>menu</nav><p>  </p><h1>Only a heading</h1>")
    (tmp_path / "folder.html").mkdir()
    write_page(tmp_path, "ok.htm", "<p>Fine.</p>")
    docs, report = read(tmp_path)
    assert list(docs) == ["ok"]
    skipped = problems(report.skipped)
    assert "empty.html: empty document" in skipped
    assert "folder.html: not a regular file" in skipped


def test_binary_files_xhtml_and_malformed_addresses_do_not_crash(tmp_path: Path) -> None:
    (tmp_path / "binary.html").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 8)
    (tmp_path / "xhtml.html").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        "<head><title>X</title></head><body><p>xhtml é</p></body></html>",
        encoding="utf-8",
    )
    write_page(
        tmp_path,
        "odd.html",
        '<p><a href="http://[bad">bad</a> text</p>'
        '<img src="http://[bad" alt="odd"><img src="file:///etc/x.png">',
        '<link rel="canonical" href="https://[bad">',
    )
    docs, report = read(tmp_path)
    assert sorted(docs) == ["odd", "xhtml"]
    assert docs["xhtml"].components[0].text == "xhtml é"
    assert [(c.kind, c.text) for c in docs["odd"].components] == [
        ("paragraph", "bad text"),
        ("image", "odd"),
    ]
    assert report.unresolved_links == 1
    assert "binary content" in problems(report.skipped)


def test_title_and_url_fallbacks_and_duplicate_canonical_url(tmp_path: Path) -> None:
    write_page(
        tmp_path,
        "a.html",
        "<h1>Heading A</h1><p>a</p>",
        '<meta property="og:url" content="https://example.org/same">',
    )
    write_page(
        tmp_path, "b.html", "<p>b</p>", '<link rel="canonical" href="https://example.org/same">'
    )
    write_page(tmp_path, "c/d.html", "<p>d</p>")
    docs, report = read(tmp_path)
    assert (docs["a"].title, docs["a"].url) == ("Heading A", "https://example.org/same")
    assert (docs["c/d"].title, docs["c/d"].url) == ("c/d", "")
    assert "already belongs to 'a'" in problems(report.repaired)


def test_missing_folder_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusFormatError, match="not a folder"):
        read_html_pages(tmp_path / "nope", IngestReport(), ImageGuard(tmp_path))


def test_fixture_site_reads_into_linked_documents() -> None:
    docs, report = read(FIXTURE_SITE)
    assert sorted(docs) == ["wiki/Eiffel_Tower", "wiki/France", "wiki/Paris"]
    paris, france, tower = docs["wiki/Paris"], docs["wiki/France"], docs["wiki/Eiffel_Tower"]
    assert paris.url == "https://example.org/wiki/Paris"
    assert [c.kind for c in paris.components] == ["paragraph", "table"]
    assert paris.components[0].links == ("wiki/France", "wiki/Eiffel_Tower")
    table = paris.components[1].table
    assert table is not None and table.header == ("Arrondissement", "Landmark")
    assert table.row_links(0) == ("wiki/Eiffel_Tower",)
    assert france.components[0].links == ("wiki/Paris",)
    assert france.components[1].text == "Official language: French\nCurrency: euro"
    image = tower.components[0]
    assert image.kind == "image" and image.text == "The Eiffel Tower seen from the Champ de Mars"
    assert image.image_path == str(FIXTURE_SITE / "images" / "eiffel_tower.png")
    assert tower.components[1].anchors == (("Paris", "wiki/Paris"),)
    assert report.skipped == [] and report.repaired == []
    assert report.unresolved_examples == [  # the <nav> link to ../index.html is never read
        f"{FIXTURE_SITE}/wiki/Eiffel_Tower.html (wiki/Eiffel_Tower::p1) -> "
        "https://en.wikipedia.org/wiki/Gustave_Eiffel"
    ]


def test_page_in_no_western_encoding_is_sniffed_by_charset_normalizer() -> None:
    # Shift_JIS bytes (0x81 in "、" and "。") are not windows-1252, so the detector decides.
    sentence = "東京は日本の首都です。人口は約千四百万人で、世界最大の都市圏の一つです。"
    text, note = decode_page(f"<html><body><p>{sentence}</p></body></html>".encode("shift_jis"))
    assert sentence in text
    assert note is not None and note.startswith("not UTF-8: decoded as ")
    assert "windows-1252" not in note


def test_an_unclosed_title_is_closed_and_reported(tmp_path: Path) -> None:
    page = tmp_path / "curie.html"
    page.write_text(
        "<html><head><title>Marie Curie\n</head><body><h1>Marie Curie</h1>"
        "<p>Marie Curie was born in Warsaw in 1867.</p><p>She won two Nobel prizes.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    write_page(tmp_path, "code.html", "<p>How to write markup.</p>", "<title>Using <div></title>")
    documents, report = read(tmp_path)
    curie = documents["curie"]
    assert curie.title == "Marie Curie"
    assert [c.text for c in curie.components] == [
        "Marie Curie was born in Warsaw in 1867.",
        "She won two Nobel prizes.",
    ]
    assert all("<" not in c.text for c in curie.components)
    assert "unclosed <title>" in problems(report.repaired) and "curie.html" in problems(
        report.repaired
    )
    assert documents["code"].title == "Using <div>"  # a title mentioning a tag is left alone
    assert "code.html" not in problems(report.repaired)
