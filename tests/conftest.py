"""Shared fixtures: the mini bundle, a hash-embedder build of it, bundle, image and PDF writers."""

from __future__ import annotations

import json
import shutil
import struct
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fpdf import FPDF
from PIL import Image

from corpus_builder.build import BuildOptions, build
from tools.manifest import Manifest

MINI_BUNDLE = Path(__file__).resolve().parent / "fixtures" / "mini_bundle"
HASH_SPEC = "hash:64"


@pytest.fixture(scope="session", autouse=True)
def query_encoder_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Keep saved query encoders (tools.saved_encoder) in a session folder, not ~/.cache."""
    folder = tmp_path_factory.mktemp("fif_cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("FIF_CACHE_DIR", str(folder))  # subprocesses the tests start inherit it
    yield folder
    patch.undo()


Line = dict[str, Any] | str | bytes
"""A corpus.jsonl line: a record to serialise, raw text, or raw bytes (for encoding errors)."""


class Records:
    """Build bundle records the way corpus.jsonl spells them."""

    @staticmethod
    def paragraph(cid: str, text: str, links: Sequence[str] = ()) -> dict[str, Any]:
        return {"component_id": cid, "type": "paragraph", "text": text, "links": list(links)}

    @staticmethod
    def image(cid: str, path: str | None, caption: str = "") -> dict[str, Any]:
        record: dict[str, Any] = {"component_id": cid, "type": "image", "caption": caption}
        if path is not None:
            record["image_path"] = path
        return record

    @staticmethod
    def table(
        cid: str,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        cell_links: Sequence[Sequence[Sequence[str]]] | None = None,
        caption: str = "",
    ) -> dict[str, Any]:
        record: dict[str, Any] = {
            "component_id": cid,
            "type": "table",
            "caption": caption,
            "table": {"header": list(header), "rows": [list(row) for row in rows]},
        }
        if cell_links is not None:
            record["cell_links"] = [[list(cell) for cell in row] for row in cell_links]
        return record

    @staticmethod
    def document(doc_id: str, *components: dict[str, Any], title: str = "") -> dict[str, Any]:
        return {"doc_id": doc_id, "title": title, "components": list(components)}


@pytest.fixture
def records() -> type[Records]:
    """Return the record builders."""
    return Records


@pytest.fixture
def write_bundle(tmp_path: Path) -> Callable[..., Path]:
    """Return a writer of `<tmp>/<name>/corpus.jsonl` from records, text or bytes lines."""

    def write(lines: Sequence[Line], name: str = "bundle") -> Path:
        folder = tmp_path / name
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "corpus.jsonl").open("wb") as handle:
            for line in lines:
                if isinstance(line, dict):
                    line = json.dumps(line, ensure_ascii=False)
                handle.write(line if isinstance(line, bytes) else line.encode("utf-8"))
                handle.write(b"\n")
        return folder

    return write


@pytest.fixture
def write_png() -> Callable[..., Path]:
    """Return a writer of small RGB PNG files."""

    def write(path: Path, size: tuple[int, int] = (32, 32), color: str = "red") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", size, color).save(path)
        return path

    return write


@pytest.fixture
def write_bomb_png(write_png: Callable[..., Path]) -> Callable[[Path], Path]:
    """Return a writer of a tiny PNG whose header claims 20000 x 20000 pixels."""

    def write(path: Path) -> Path:
        png = write_png(path, (4, 4)).read_bytes()
        ihdr = b"IHDR" + struct.pack(">II", 20_000, 20_000) + png[24:29]
        path.write_bytes(png[:12] + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + png[33:])
        return path

    return write


@pytest.fixture
def mini_bundle(tmp_path: Path) -> Path:
    """Return a private copy of the mini bundle that a test may edit."""
    return Path(shutil.copytree(MINI_BUNDLE, tmp_path / "mini_bundle"))


def hash_options(**overrides: Any) -> BuildOptions:
    """Return build options for unit tests: hash embedder, no progress bar."""
    return BuildOptions(**{"text_embedder": HASH_SPEC, "show_progress": False, **overrides})


@pytest.fixture
def hash_build() -> Callable[..., Manifest]:
    """Return `build(corpus, index_dir, **options)` with the hash embedder."""

    def run(corpus: Path, index_dir: Path, **overrides: Any) -> Manifest:
        return build(corpus, index_dir, hash_options(**overrides))

    return run


@pytest.fixture(scope="session")
def mini_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the index folder of the mini bundle built once with hash:64 (read only)."""
    index_dir = tmp_path_factory.mktemp("mini_index")
    build(MINI_BUNDLE, index_dir, hash_options())
    return index_dir


@pytest.fixture(scope="session")
def filing_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the index folder of the synthetic filing PDF built once with hash:64 (read only).

    The PDF stays beside it (`<index>/../acme_2023_10k.pdf`), where the index recorded it.
    """
    folder = tmp_path_factory.mktemp("filing_index")
    pdf = write_filing(folder / "acme_2023_10k.pdf")
    build(pdf, folder / "index", hash_options())
    return folder / "index"


CliOutcome = tuple[object, str, str]
"""What `fif ARGS` did: (exit code, stdout, stderr)."""


@pytest.fixture
def run_fif_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., CliOutcome]:
    """Return `run(*args)`: `fif ARGS` through main(), as the console script runs it."""
    from fif import cli

    def run(*args: str) -> CliOutcome:
        monkeypatch.setattr(sys, "argv", ["fif", *args])
        with pytest.raises(SystemExit) as done:
            cli.main()
            raise SystemExit(0)
        captured = capsys.readouterr()
        return done.value.code, captured.out, captured.err

    return run


# -- a synthetic PDF filing: headings, a table over a page break, furniture, links ------
BODY = (
    "Our revenue grew in every region this year because demand for our products stayed "
    "strong and prices held. We describe our accounting for revenue in detail; see Note 2 "
    "for the policies we apply and the judgements they need."
)
ROWS = 40
"""Table rows: more than fit below the heading on one page, so the table crosses a break."""


class Filing(FPDF):
    """A filing whose pages repeat a "Table of Contents" header and a "Page N" footer."""

    plain_pages: set[int]

    def header(self) -> None:
        if self.page_no() - 1 in self.plain_pages:
            return
        self.set_font("Helvetica", size=8)
        self.cell(0, 5, "Table of Contents", new_x="LMARGIN", new_y="NEXT")

    def footer(self) -> None:
        if self.page_no() - 1 in self.plain_pages:
            return
        self.set_y(-12)
        self.set_font("Helvetica", size=8)
        self.cell(0, 5, f"ACME Corp | 2023 Form 10-K | {self.page_no()}", align="C")


def heading(pdf: FPDF, text: str, size: int = 12) -> None:
    pdf.ln(4)
    pdf.set_font("Helvetica", "B", size)
    pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)


def paragraph(pdf: FPDF, text: str = BODY) -> None:
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def table_row(pdf: FPDF, label: str, *values: str) -> None:
    pdf.cell(90, 5, label)
    for value in values:
        pdf.cell(40, 5, value, align="R")
    pdf.ln(5)


def write_filing(path: Path, blank_page: bool = False) -> Path:
    """Write the filing: title page, Item 7 with a long table, Item 8, Note 2, a blank page."""
    pdf = Filing()
    pdf.plain_pages = set()
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_page()
    heading(pdf, "ACME Corp Annual Report 2023", size=22)
    paragraph(pdf, "ACME Corp makes anvils. This report covers the fiscal year 2023.")
    item8 = pdf.add_link()
    pdf.set_font("Helvetica", size=10)
    pdf.cell(0, 5, "Financial statements are in Item 8 of this report.", link=item8)
    pdf.ln(8)
    heading(pdf, "Item 7. Management's Discussion and Analysis")
    paragraph(pdf)
    pdf.set_y(200)
    table_row(pdf, "Year ended December 31,", "2023", "2022")
    for n in range(ROWS):
        table_row(pdf, f"Anvil model {chr(65 + n % 26)}{n // 26}", f"$ {1000 + n:,}", f"({50 + n})")
    paragraph(pdf, "The table above shows sales by line. Amounts are in thousands of dollars.")
    pdf.add_page()
    pdf.set_link(item8, page=pdf.page_no())
    heading(pdf, "Item 8. Financial Statements")
    paragraph(pdf, "The statements follow the generally accepted accounting principles.")
    heading(pdf, "Note 2 - Revenue Recognition")
    paragraph(pdf, "We recognise revenue when an anvil ships to the customer.")
    if blank_page:
        pdf.plain_pages.add(pdf.page_no())
        pdf.add_page()
        pdf.add_page()
        paragraph(pdf, "A page after the blank one keeps the file's tail readable.")
    pdf.output(str(path))
    return path


@pytest.fixture
def filing_pdf(tmp_path: Path) -> Path:
    """Return the path of a freshly written synthetic filing (fpdf2)."""
    return write_filing(tmp_path / "acme_2023_10k.pdf")


@pytest.fixture
def filing_writer() -> Callable[..., Path]:
    """Return `write_filing(path, blank_page=False)` to write synthetic filings elsewhere."""
    return write_filing


@pytest.fixture
def report_writer() -> Callable[..., Path]:
    """Return `write_report(path)`: a PDF with a vector chart, a photo and a scanned page."""
    from figure_report import write_report

    return write_report
