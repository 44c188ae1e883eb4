"""PDF ingestion figures on a FinanceBench-layout folder, side by side with bare pypdfium2.

Usage: python benchmarks/pdf_bench.py DATA/financebench-dev [--out runs/pdf_bench]

Prints and writes (OUT/pdf_bench.json):
- pages/s of bare pypdfium2 text extraction (`page.get_textpage().get_text_range()`, the
  limit) and of FiF's PDF ingestion (lines, furniture, sections, tables, references) on the
  same files in the same run, after one pass that warms the OS file cache;
- peak RSS of the process;
- files whose sections come from their outline vs from detected headings;
- components, tables and table rows; the gold evidence pages of the questions covered by at
  least one component, and those whose covering components hold >= 70% of the evidence
  text's words (section titles counted).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import time
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from corpus_builder.pdf_ingest import pdf_files, read_pdfs
from corpus_builder.pdf_reader import outline_entries
from corpus_builder.pdf_sections import plausible_outline
from evals.datasets.pdf_bundle import covering
from state.corpus import Document, IngestReport

EVIDENCE_SHARE = 0.7


def bare_extraction(paths: list[Path]) -> tuple[int, float, float, list[bool]]:
    """Extract every page's text with bare pypdfium2: pages, wall and CPU seconds.

    Which outlines are plausible is noted too, outside the timed part.
    """
    pages, started, cpu, outlined = 0, time.perf_counter(), time.process_time(), []
    for path in paths:
        document = pdfium.PdfDocument(str(path))
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
            pages += 1
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
        outlined.append(plausible_outline(outline_entries(document, len(document))))
        started, cpu = time.perf_counter() - seconds, time.process_time() - cpu_seconds
        document.close()
    return pages, time.perf_counter() - started, time.process_time() - cpu, outlined


def words(text: str) -> set[str]:
    """Return the lowercase words and numbers of a text."""
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def page_words(document: Document, page: int) -> set[str]:
    """Return the words of the components covering a page, their section titles included."""
    found: set[str] = set()
    for component in document.components:
        if component.pages and component.pages[0] <= page <= component.pages[1]:
            found |= words(component.text) | words(" ".join(component.section))
            if component.table is not None:
                found |= words(" ".join(" ".join(row) for row in component.table.rows))
    return found


def gold_coverage(raw: Path, documents: list[Document]) -> dict[str, Any]:
    """Count evidence pages, those covered by a component, and those holding the evidence."""
    by_id = {document.doc_id: document for document in documents}
    total = covered = holding = 0
    with (raw / "financebench_open_source.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            for evidence in json.loads(line)["evidence"]:
                document = by_id.get(evidence["doc_name"])
                page = int(evidence["evidence_page_num"])
                total += 1
                if document is None or not covering(document, page):
                    continue
                covered += 1
                wanted = words(evidence["evidence_text"])
                share = len(wanted & page_words(document, page)) / max(1, len(wanted))
                holding += share >= EVIDENCE_SHARE
    return {"gold_pages": total, "covered": covered, "covered_holding_evidence": holding}


def main() -> None:
    """Measure, print and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", type=Path, help="folder with pdfs/ and the question file")
    parser.add_argument("--out", type=Path, default=Path("runs/pdf_bench"))
    args = parser.parse_args()
    paths = pdf_files(args.raw / "pdfs")
    for path in paths:  # warm the OS file cache so neither side pays the first read
        path.read_bytes()
    pages, bare_seconds, bare_cpu, outlined = bare_extraction(paths)
    report = IngestReport()
    started, cpu = time.perf_counter(), time.process_time()
    documents = read_pdfs(paths, report)
    fif_seconds, fif_cpu = time.perf_counter() - started, time.process_time() - cpu
    components = [c for d in documents for c in d.components]
    tables = [c for c in components if c.table is not None]
    figures = {
        "files": len(paths),
        "pages": pages,
        "bare_pypdfium2_seconds": round(bare_seconds, 2),
        "bare_pypdfium2_cpu_seconds": round(bare_cpu, 2),
        "bare_pypdfium2_pages_per_s": round(pages / bare_seconds, 1),
        "bare_pypdfium2_pages_per_cpu_s": round(pages / bare_cpu, 1),
        "fif_seconds": round(fif_seconds, 2),
        "fif_cpu_seconds": round(fif_cpu, 2),
        "fif_pages_per_s": round(pages / fif_seconds, 1),
        "fif_pages_per_cpu_s": round(pages / fif_cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "sections_from_outline": sum(outlined),
        "sections_from_headings": len(outlined) - sum(outlined),
        "documents": len(documents),
        "skipped": [f"{s.where}: {s.problem}" for s in report.skipped],
        "repaired": [f"{s.where}: {s.problem}" for s in report.repaired],
        "components": len(components),
        "tables": len(tables),
        "table_rows": sum(len(c.table.rows) for c in tables if c.table is not None),
        "references": sum(len(c.refers_to) for c in components),
        **gold_coverage(args.raw, documents),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pdf_bench.json").write_text(json.dumps(figures, indent=1) + "\n")
    width = max(len(key) for key in figures)
    for key, value in figures.items():
        if isinstance(value, list):
            print(f"{key:<{width}}  {len(value)}")
            for item in value:
                print(f"{'':<{width}}    {item}")
        else:
            print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
